/* collision_response.c - the contact managers: CollisionResponse (alias
 * DefaultContactManager) and RuleBasedContactManager. They say which
 * response each pair of colliding models gets, with SOFA's rules
 * (CollisionResponse::getContactResponse): a response set on one of the
 * models (contactResponse) first, then, for RuleBasedContactManager, the
 * first of its rules that matches the pair either way round, then the
 * manager's response (with "?" and responseParams when those are set).
 * settee has SOFA's default, PenalityContactForceField (penalty.c), SOFA's
 * "nullptr" (no response: the pair is left out), and the Lagrangian
 * responses FrictionContactConstraint (mu, default 0.8) and
 * StickContactConstraint (keepAlive, default true), which need a
 * FreeMotionAnimationLoop and a constraint solver (contact_constraint.c:
 * the manager is then the constraint model of the pairs' contacts; one
 * Lagrangian response, the manager's, per scene). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision.h"

#define RESPONSE_FIELDS                                                                           \
    ST_STRING(cresponse, response, "response", "PenalityContactForceField",                       \
              "contact response class (settee: PenalityContactForceField, "                  \
              "StickContactForceField, FrictionContactConstraint, StickContactConstraint, "      \
              "AugmentedLagrangianResponseConstraint, or nullptr for none)"),                     \
        ST_STRING(cresponse, response_params, "responseParams", NULL,                             \
                  "contact response parameters (syntax: name1=value1&name2=value2&...) "         \
                  "(PenalityContactForceField: settee's geometricStiffness=0|1, the rigid "     \
                  "contact mapping's geometric stiffness, 0 as SOFA's RigidMapping default; "    \
                  "FrictionContactConstraint: mu, default 0.8, and tol, only 0; "                \
                  "StickContactConstraint and StickContactForceField: keepAlive, default "      \
                  "true; AugmentedLagrangianResponseConstraint: mu, default 0, and epsilon, "   \
                  "default 0)"),                                                                \
        ST_OUTPUT(cresponse, active, "numberOfActiveContacts", ST_T_UINT, unsigned,              \
                  "settee: OUTPUT: Lagrangian contacts whose normal multiplier was not zero at "  \
                  "the last constraint solve (every stick contact)")

static const st_field fields[] = {RESPONSE_FIELDS, ST_FIELD_END};

static const st_field rule_fields[] = {
    RESPONSE_FIELDS,
    ST_STRING(cresponse, variables, "variables", NULL,
              "Define a list of variables to be used inside the rules (settee: not supported, "
              "must be empty)"),
    ST_STRING(cresponse, rules_text, "rules", NULL,
              "Ordered list of rules, each with a triplet of strings. The first two define either "
              "the name of the collision model, its group number, or * meaning any model. The "
              "last string define the response algorithm to use for contacts matched by this "
              "rule. Rules are applied in the order they are specified. If none match a given "
              "contact, the default response is used."),
    ST_FIELD_END};

static const char *kind_name(cresp_kind k)
{
    static const char *const names[] = {"PenalityContactForceField", "FrictionContactConstraint",
                                        "StickContactConstraint", "nullptr",
                                        "StickContactForceField",
                                        "AugmentedLagrangianResponseConstraint"};
    return names[k];
}

/* The parameters after "?" (SOFA's "name1=value1&name2=value2") for the
 * response out->kind: PenalityContactForceField knows settee's
 * geometricStiffness (0 or 1: the rigid contact mapping's geometric
 * stiffness, SOFA's RigidMapping field of that name; 0, SOFA's default,
 * leaves it out), FrictionContactConstraint mu and tol (0 only: the
 * solver's tolerance), StickContactConstraint keepAlive. */
static st_status parse_params(const st_component *self, const char *field, const char *p,
                              cresp *out, st_error *err)
{
    while (*p) {
        size_t n = strcspn(p, "&?");
        const char *eq = memchr(p, '=', n);
        size_t kn = eq ? (size_t)(eq - p) : n;
        char val[64] = "";
        if (eq) {
            size_t vn = n - kn - 1;
            if (vn >= sizeof val)
                vn = sizeof val - 1;
            memcpy(val, eq + 1, vn);
            val[vn] = 0;
        }
        char *end = NULL;
        if (!n) {
            /* an empty item ("a=1&&b=2") */
        } else if (!eq) {
            return st_component_error(self, field, err, ST_ESCENE,
                                      "responseParams: '%.*s' is not name=value", (int)n, p);
        } else if (out->kind == CR_PENALTY && kn == 18 && !strncmp(p, "geometricStiffness", kn)) {
            long v = strtol(val, &end, 10);
            if (end == val || *end || v < 0 || v > 1)
                return st_component_error(self, field, err, ST_ESCENE,
                                          "geometricStiffness is 0 (none, SOFA's default) or 1 "
                                          "(exact; settee has not SOFA's stabilized 2): got '%s'",
                                          val);
            out->geometric_stiffness = (int)v;
        } else if (out->kind == CR_FRICTION &&
                   ((kn == 2 && !strncmp(p, "mu", 2)) || (kn == 3 && !strncmp(p, "tol", 3)))) {
            double v = strtod(val, &end);
            if (end == val || *end || !(v >= 0.0))
                return st_component_error(self, field, err, ST_ESCENE,
                                          "%.*s=%s is not a non-negative number", (int)kn, p, val);
            if (kn == 3 && v != 0.0)
                return st_component_error(self, field, err, ST_ESCENE,
                                          "tol=%s: a per-contact tolerance is not implemented in "
                                          "settee (only 0: the solver's tolerance)",
                                          val);
            if (kn == 2)
                out->mu = v;
        } else if (out->kind == CR_AUGLAG &&
                   ((kn == 2 && !strncmp(p, "mu", 2)) || (kn == 7 && !strncmp(p, "epsilon", 7)))) {
            double v = strtod(val, &end);
            if (end == val || *end || !(v >= 0.0))
                return st_component_error(self, field, err, ST_ESCENE,
                                          "%.*s=%s is not a non-negative number", (int)kn, p, val);
            if (kn == 2)
                out->mu = v;
            else
                out->epsilon = v;
        } else if ((out->kind == CR_STICK || out->kind == CR_STICKFF) && kn == 9 &&
                   !strncmp(p, "keepAlive", 9)) {
            if (!strcmp(val, "1") || !strcmp(val, "true"))
                out->keep_alive = true;
            else if (!strcmp(val, "0") || !strcmp(val, "false"))
                out->keep_alive = false;
            else
                return st_component_error(self, field, err, ST_ESCENE,
                                          "keepAlive=%s is not a boolean", val);
        } else {
            return st_component_error(self, field, err, ST_ESCENE,
                                      "'%.*s' is not a parameter of %s in settee", (int)kn, p,
                                      kind_name(out->kind));
        }
        p += n + (p[n] != 0);
    }
    return ST_OK;
}

/* Which response a SOFA response string names ("Type" or "Type?a=b&c=d"). */
st_status cresponse_parse(const st_component *self, const char *field, const char *s,
                          cresp *out, st_error *err)
{
    size_t n = strcspn(s, "?");
    out->geometric_stiffness = 0;
    out->mu = 0.8;
    out->tol = 0.0;
    out->keep_alive = true;
    out->epsilon = 0.0;
    if ((n == 25 && !strncmp(s, "PenalityContactForceField", n)) ||
        (n == 7 && !strncmp(s, "default", n)))
        out->kind = CR_PENALTY;
    else if (n == 25 && !strncmp(s, "FrictionContactConstraint", n))
        out->kind = CR_FRICTION;
    else if (n == 22 && !strncmp(s, "StickContactConstraint", n))
        out->kind = CR_STICK;
    else if (n == 7 && !strncmp(s, "nullptr", n))
        out->kind = CR_NONE;
    else if (n == 22 && !strncmp(s, "StickContactForceField", n))
        out->kind = CR_STICKFF;
    else if (n == 37 && !strncmp(s, "AugmentedLagrangianResponseConstraint", n)) {
        out->kind = CR_AUGLAG;
        out->mu = 0.0; /* SOFA's AugmentedLagrangianResponse default */
    }
    else
        return st_component_error(self, field, err, ST_ESCENE,
                                  "response '%.*s' is not available in settee; "
                                  "PenalityContactForceField, StickContactForceField, "
                                  "FrictionContactConstraint, StickContactConstraint, "
                                  "AugmentedLagrangianResponseConstraint and nullptr (no "
                                  "response) are",
                                  (int)n, s);
    return s[n] ? parse_params(self, field, s + n + 1, out, err) : ST_OK;
}

/* Splits the rules into triplets (SOFA reads them with >>: any white
 * space); a token of digits (and '-') is a group number. */
static st_status parse_rules(cresponse *r, st_error *err)
{
    const char *p = r->rules_text ? r->rules_text : "";
    char tok[3][256];
    for (;;) {
        int k = 0;
        for (; k < 3; k++) {
            while (isspace((unsigned char)*p))
                p++;
            size_t n = 0;
            while (*p && !isspace((unsigned char)*p)) {
                if (n + 1 < sizeof tok[k])
                    tok[k][n++] = *p;
                p++;
            }
            tok[k][n] = 0;
            if (!n)
                break;
        }
        if (k == 0)
            return ST_OK;
        if (k < 3) {
            /* SOFA's vector read stops at the first incomplete triplet, at
             * the end of the text, and keeps the rules before it. */
            st_component_warn_field(&r->base, "rules",
                                    "rule %zu has %d word%s ('%s'%s): each rule is a triplet "
                                    "(model or group, model or group, response); as SOFA, the "
                                    "incomplete last rule is ignored",
                                    r->nrules + 1, k, k == 1 ? "" : "s", tok[0],
                                    k == 2 ? " ..." : "");
            return ST_OK;
        }
        crule *l = st_realloc(r->rules, (r->nrules + 1) * sizeof *l);
        if (!l)
            return st_error_set(err, ST_ENOMEM, "out of memory reading the rules");
        r->rules = l;
        crule *ru = &l[r->nrules++];
        memset(ru, 0, sizeof *ru);
        for (int s = 0; s < 2; s++) {
            /* A token of digits and '-' that reads as an int is a group;
             * anything else (even "-") is a model name, as in SOFA. */
            char *end = NULL;
            errno = 0;
            long g = strtol(tok[s], &end, 10);
            if (strspn(tok[s], "-0123456789") == strlen(tok[s]) && end && !*end &&
                end != tok[s] && errno == 0 && g >= INT_MIN && g <= INT_MAX)
                ru->group[s] = (int)g;
            else
                snprintf(ru->name[s], sizeof ru->name[s], "%s", tok[s]);
        }
        snprintf(ru->response, sizeof ru->response, "%s", tok[2]);
        cresp dummy;
        ST_TRY(cresponse_parse(&r->base, "rules", ru->response, &dummy, err));
    }
}

/* The manager's own response: response, then responseParams. */
static st_status own_response(const cresponse *r, cresp *out, st_error *err)
{
    ST_TRY(cresponse_parse(&r->base, "response",
                           r->response && r->response[0] ? r->response : "default", out, err));
    if (r->response_params && r->response_params[0])
        ST_TRY(parse_params(&r->base, "responseParams", r->response_params, out, err));
    return ST_OK;
}

static st_status response_init(st_component *self, st_error *err)
{
    cresponse *r = (cresponse *)self;
    cresp own;
    ST_TRY(own_response(r, &own, err));
    r->kind = own.kind;
    r->mu = own.mu;
    r->tol = own.tol;
    r->keep_alive = own.keep_alive;
    r->epsilon = own.epsilon;
    if (r->variables && r->variables[0])
        return st_component_error(self, "variables", err, ST_ESCENE,
                                  "variables are not supported in settee (SOFA creates a data "
                                  "field per variable): write the responses in the rules");
    st_free(r->rules);
    r->rules = NULL;
    r->nrules = 0;
    return parse_rules(r, err);
}

static void response_reset(st_component *self)
{
    cresponse *r = (cresponse *)self;
    r->active = 0;
    for (size_t k = 0; k < r->npairs; k++)
        r->pairs[k].nu = 0;
}

static void response_cleanup(st_component *self)
{
    cresponse *r = (cresponse *)self;
    st_free(r->rules);
    r->rules = NULL;
    r->nrules = 0;
}

static bool has_group(const cmodel *m, int g)
{
    for (size_t i = 0; i < m->group.n; i++)
        if ((int)m->group.u[i] == g)
            return true;
    return false;
}

static bool side_matches(const crule *ru, int s, const cmodel *m)
{
    if (ru->name[s][0])
        return !strcmp(ru->name[s], "*") || !strcmp(ru->name[s], m->base.name);
    return has_group(m, ru->group[s]);
}

st_status st_contact_response(const st_component *mgr, const cmodel *a, const cmodel *b,
                              cresp *out, st_error *err)
{
    const cresponse *r = (const cresponse *)mgr;
    /* A response set on a model takes priority (SOFA's rule). */
    const char *ra = a->contact_response, *rb = b->contact_response;
    if (ra && ra[0])
        return cresponse_parse(&a->base, "contactResponse", ra, out, err);
    if (rb && rb[0])
        return cresponse_parse(&b->base, "contactResponse", rb, out, err);
    for (size_t i = 0; r && i < r->nrules; i++) {
        const crule *ru = &r->rules[i];
        if ((side_matches(ru, 0, a) && side_matches(ru, 1, b)) ||
            (side_matches(ru, 0, b) && side_matches(ru, 1, a)))
            return cresponse_parse(mgr, "rules", ru->response, out, err);
    }
    if (!r)
        return cresponse_parse(mgr, "response", "default", out, err);
    return own_response(r, out, err);
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
    .init = response_init,
    .reset = response_reset,
    .cleanup = response_cleanup,
    .constraint = &contact_constraint_ops,
};

const st_class rule_based_contact_manager_class = {
    .struct_size = sizeof(st_class),
    .name = "RuleBasedContactManager",
    .category = "CollisionAlgorithm",
    .description = "Create different response to the collisions based on a set of rules.",
    .instance_size = sizeof(cresponse),
    .fields = rule_fields,
    .init = response_init,
    .reset = response_reset,
    .cleanup = response_cleanup,
    .constraint = &contact_constraint_ops,
};

bool st_is_contact_manager(const st_component *c)
{
    return c->cls == &collision_response_class || c->cls == &rule_based_contact_manager_class;
}
