/* collision_response.c - CollisionResponse (alias DefaultContactManager):
 * which contact the detection outputs become. settee has SOFA's default,
 * PenalityContactForceField (penalty.c); another response is refused. */
#include <string.h>

#include "collision.h"

typedef struct response {
    st_component base;
    char *response;        /* "response" */
    char *response_params; /* "responseParams" */
} response;

static const st_field fields[] = {
    ST_STRING(response, response, "response", "PenalityContactForceField",
              "contact response class (settee: PenalityContactForceField)"),
    ST_STRING(response, response_params, "responseParams", NULL,
              "contact response parameters (syntax: name1=value1&name2=value2&...) (none for "
              "PenalityContactForceField)"),
    ST_FIELD_END};

static st_status init(st_component *self, st_error *err)
{
    response *r = (response *)self;
    if (r->response && r->response[0] && strcmp(r->response, "PenalityContactForceField") &&
        strcmp(r->response, "default"))
        return st_component_error(self, "response", err, ST_ESCENE,
                                  "response '%s' is not available in settee; "
                                  "PenalityContactForceField is",
                                  r->response);
    if (r->response_params && r->response_params[0])
        return st_component_error(self, "responseParams", err, ST_ESCENE,
                                  "PenalityContactForceField takes no responseParams");
    return ST_OK;
}

static const char *const aliases[] = {"DefaultContactManager", NULL};

const st_class collision_response_class = {
    .struct_size = sizeof(st_class),
    .name = "CollisionResponse",
    .category = "CollisionAlgorithm",
    .description = "Contact manager: creates the contact response of each colliding pair "
                   "(PenalityContactForceField)",
    .aliases = aliases,
    .instance_size = sizeof(response),
    .fields = fields,
    .init = init,
};

bool st_is_contact_manager(const st_component *c) { return c->cls == &collision_response_class; }
