/* collision_response.c - CollisionResponse (alias DefaultContactManager):
 * which contact the detection outputs become. settee has SOFA's default,
 * PenalityContactForceField (penalty.c), and the Lagrangian responses
 * FrictionContactConstraint (responseParams mu, default 0.8) and
 * StickContactConstraint (keepAlive, default true), which need a
 * FreeMotionAnimationLoop and a constraint solver (contact_constraint.c:
 * this component is then the constraint model of every pair's contacts).
 * responseParams follows SOFA's syntax name1=value1&name2=value2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision.h"

static const st_field fields[] = {
    ST_STRING(cresponse, response, "response", "PenalityContactForceField",
              "contact response class (settee: PenalityContactForceField, "
              "FrictionContactConstraint or StickContactConstraint)"),
    ST_STRING(cresponse, response_params, "responseParams", NULL,
              "contact response parameters (syntax: name1=value1&name2=value2&...) "
              "(FrictionContactConstraint: mu, default 0.8, and tol, only 0; StickContactConstraint: "
              "keepAlive, default true; none for PenalityContactForceField)"),
    ST_OUTPUT(cresponse, active, "numberOfActiveContacts", ST_T_UINT, unsigned,
              "settee: OUTPUT: Lagrangian contacts whose normal multiplier was not zero at the "
              "last constraint solve (every stick contact)"),
    ST_FIELD_END};

/* One name=value of responseParams. */
static st_status set_param(cresponse *r, const char *name, const char *value, st_error *err)
{
    char *end = NULL;
    if (r->kind == CR_FRICTION && (!strcmp(name, "mu") || !strcmp(name, "tol"))) {
        double v = strtod(value, &end);
        if (end == value || *end || !(v >= 0.0))
            return st_component_error(&r->base, "responseParams", err, ST_ESCENE,
                                      "responseParams: %s=%s is not a non-negative number", name,
                                      value);
        if (!strcmp(name, "mu"))
            r->mu = v;
        else
            r->tol = v;
        if (r->tol != 0.0)
            return st_component_error(&r->base, "responseParams", err, ST_ESCENE,
                                      "responseParams: tol=%s: a per-contact tolerance is not "
                                      "implemented in settee (only 0: the solver's tolerance)",
                                      value);
        return ST_OK;
    }
    if (r->kind == CR_STICK && !strcmp(name, "keepAlive")) {
        if (!strcmp(value, "1") || !strcmp(value, "true"))
            r->keep_alive = true;
        else if (!strcmp(value, "0") || !strcmp(value, "false"))
            r->keep_alive = false;
        else
            return st_component_error(&r->base, "responseParams", err, ST_ESCENE,
                                      "responseParams: keepAlive=%s is not a boolean", value);
        return ST_OK;
    }
    return st_component_error(&r->base, "responseParams", err, ST_ESCENE,
                              "responseParams: '%s' is not a parameter of %s", name,
                              r->response);
}

static st_status parse_params(cresponse *r, st_error *err)
{
    const char *s = r->response_params;
    while (s && *s) {
        const char *amp = strchr(s, '&');
        size_t len = amp ? (size_t)(amp - s) : strlen(s);
        char item[256];
        if (len >= sizeof item)
            return st_component_error(&r->base, "responseParams", err, ST_ESCENE,
                                      "responseParams: an item is too long");
        memcpy(item, s, len);
        item[len] = '\0';
        char *eq = strchr(item, '=');
        if (len && !eq)
            return st_component_error(&r->base, "responseParams", err, ST_ESCENE,
                                      "responseParams: '%s' is not name=value", item);
        if (eq) {
            *eq = '\0';
            ST_TRY(set_param(r, item, eq + 1, err));
        }
        s = amp ? amp + 1 : NULL;
    }
    return ST_OK;
}

static st_status init(st_component *self, st_error *err)
{
    cresponse *r = (cresponse *)self;
    const char *name = r->response && r->response[0] ? r->response : "default";
    r->mu = 0.8;
    r->tol = 0.0;
    r->keep_alive = true;
    if (!strcmp(name, "PenalityContactForceField") || !strcmp(name, "default"))
        r->kind = CR_PENALTY;
    else if (!strcmp(name, "FrictionContactConstraint"))
        r->kind = CR_FRICTION;
    else if (!strcmp(name, "StickContactConstraint"))
        r->kind = CR_STICK;
    else
        return st_component_error(self, "response", err, ST_ESCENE,
                                  "response '%s' is not available in settee; "
                                  "PenalityContactForceField, FrictionContactConstraint and "
                                  "StickContactConstraint are",
                                  r->response);
    if (r->kind == CR_PENALTY && r->response_params && r->response_params[0])
        return st_component_error(self, "responseParams", err, ST_ESCENE,
                                  "PenalityContactForceField takes no responseParams");
    return parse_params(r, err);
}

static void reset(st_component *self)
{
    cresponse *r = (cresponse *)self;
    r->active = 0;
    for (size_t k = 0; k < r->npairs; k++)
        r->pairs[k].nu = 0;
}

static const char *const aliases[] = {"DefaultContactManager", NULL};

const st_class collision_response_class = {
    .struct_size = sizeof(st_class),
    .name = "CollisionResponse",
    .category = "CollisionAlgorithm",
    .description = "Contact manager: creates the contact response of each colliding pair "
                   "(PenalityContactForceField, or the Lagrangian FrictionContactConstraint and "
                   "StickContactConstraint)",
    .aliases = aliases,
    .instance_size = sizeof(cresponse),
    .fields = fields,
    .init = init,
    .reset = reset,
    .constraint = &contact_constraint_ops,
};
