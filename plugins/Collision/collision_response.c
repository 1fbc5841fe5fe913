/* collision_response.c - the contact managers: CollisionResponse (alias
 * DefaultContactManager) and RuleBasedContactManager. They say which
 * response each pair of colliding models gets, with SOFA's rules
 * (CollisionResponse::getContactResponse): a response set on one of the
 * models (contactResponse) first, then, for RuleBasedContactManager, the
 * first of its rules that matches the pair either way round, then the
 * manager's response (with "?" and responseParams when those are set).
 * settee has SOFA's default, PenalityContactForceField (penalty.c), and
 * SOFA's "nullptr" (no response: the pair is left out); any other response
 * is refused at init. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision.h"

/* One rule: a model name ("*": any) or a group number on each side. */
typedef struct crule {
    char name[2][128]; /* empty: a group number */
    int group[2];
    char response[256];
} crule;

typedef struct response {
    st_component base;
    char *response;        /* "response" */
    char *response_params; /* "responseParams" */
    char *variables;       /* RuleBasedContactManager: "variables" */
    char *rules_text;      /* RuleBasedContactManager: "rules" */
    crule *rules;
    size_t nrules;
} response;

#define RESPONSE_FIELDS                                                                           \
    ST_STRING(response, response, "response", "PenalityContactForceField",                       \
              "contact response class (settee: PenalityContactForceField, or nullptr for none)"), \
        ST_STRING(response, response_params, "responseParams", NULL,                             \
                  "contact response parameters (syntax: name1=value1&name2=value2&...) "         \
                  "(settee: geometricStiffness=0|1, the rigid contact mapping's geometric "      \
                  "stiffness, 0 as SOFA's RigidMapping default)")

static const st_field fields[] = {RESPONSE_FIELDS, ST_FIELD_END};

static const st_field rule_fields[] = {
    RESPONSE_FIELDS,
    ST_STRING(response, variables, "variables", NULL,
              "Define a list of variables to be used inside the rules (settee: not supported, "
              "must be empty)"),
    ST_STRING(response, rules_text, "rules", NULL,
              "Ordered list of rules, each with a triplet of strings. The first two define either "
              "the name of the collision model, its group number, or * meaning any model. The "
              "last string define the response algorithm to use for contacts matched by this "
              "rule. Rules are applied in the order they are specified. If none match a given "
              "contact, the default response is used."),
    ST_FIELD_END};

/* The parameters after "?" (SOFA's "name1=value1&name2=value2"): settee
 * knows geometricStiffness (0 or 1: the rigid contact mapping's geometric
 * stiffness, SOFA's RigidMapping field of that name; 0, SOFA's default,
 * leaves it out). */
static st_status parse_params(const st_component *self, const char *field, const char *p,
                              cresp *out, st_error *err)
{
    while (*p) {
        size_t n = strcspn(p, "&?");
        const char *eq = memchr(p, '=', n);
        size_t kn = eq ? (size_t)(eq - p) : n;
        if (kn == 18 && !strncmp(p, "geometricStiffness", kn) && eq) {
            char *end;
            long v = strtol(eq + 1, &end, 10);
            if (end != p + n || v < 0 || v > 1)
                return st_component_error(self, field, err, ST_ESCENE,
                                          "geometricStiffness is 0 (none, SOFA's default) or 1 "
                                          "(exact; settee has not SOFA's stabilized 2): got '%.*s'",
                                          (int)(n - kn - 1), eq + 1);
            out->geometric_stiffness = (int)v;
        } else if (n) {
            return st_component_error(self, field, err, ST_ESCENE,
                                      "PenalityContactForceField has no parameter '%.*s' in "
                                      "settee (geometricStiffness=0|1 is known)",
                                      (int)kn, p);
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
    if ((n == 25 && !strncmp(s, "PenalityContactForceField", n)) ||
        (n == 7 && !strncmp(s, "default", n)))
        out->kind = CR_PENALTY;
    else if (n == 7 && !strncmp(s, "nullptr", n))
        out->kind = CR_NONE;
    else
        return st_component_error(self, field, err, ST_ESCENE,
                                  "response '%.*s' is not available in settee; "
                                  "PenalityContactForceField and nullptr (no response) are",
                                  (int)n, s);
    return s[n] ? parse_params(self, field, s + n + 1, out, err) : ST_OK;
}

/* Splits the rules into triplets (SOFA reads them with >>: any white
 * space); a token of digits (and '-') is a group number. */
static st_status parse_rules(response *r, st_error *err)
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
        if (k < 3)
            return st_component_error(&r->base, "rules", err, ST_ESCENE,
                                      "rule %zu has %d words; each rule is a triplet: model or "
                                      "group, model or group, response",
                                      r->nrules + 1, k);
        crule *l = st_realloc(r->rules, (r->nrules + 1) * sizeof *l);
        if (!l)
            return st_error_set(err, ST_ENOMEM, "out of memory reading the rules");
        r->rules = l;
        crule *ru = &l[r->nrules++];
        memset(ru, 0, sizeof *ru);
        for (int s = 0; s < 2; s++) {
            if (strspn(tok[s], "-0123456789") == strlen(tok[s]))
                ru->group[s] = atoi(tok[s]);
            else
                snprintf(ru->name[s], sizeof ru->name[s], "%s", tok[s]);
        }
        snprintf(ru->response, sizeof ru->response, "%s", tok[2]);
        cresp dummy;
        ST_TRY(cresponse_parse(&r->base, "rules", ru->response, &dummy, err));
    }
}

static st_status response_init(st_component *self, st_error *err)
{
    response *r = (response *)self;
    cresp dummy;
    if (r->response && r->response[0])
        ST_TRY(cresponse_parse(self, "response", r->response, &dummy, err));
    if (r->response_params && r->response_params[0])
        ST_TRY(parse_params(self, "responseParams", r->response_params, &dummy, err));
    if (r->variables && r->variables[0])
        return st_component_error(self, "variables", err, ST_ESCENE,
                                  "variables are not supported in settee (SOFA creates a data "
                                  "field per variable): write the responses in the rules");
    st_free(r->rules);
    r->rules = NULL;
    r->nrules = 0;
    return parse_rules(r, err);
}

static void response_cleanup(st_component *self)
{
    response *r = (response *)self;
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
    const response *r = (const response *)mgr;
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
    out->kind = CR_PENALTY;
    out->geometric_stiffness = 0;
    if (r && r->response && r->response[0])
        ST_TRY(cresponse_parse(mgr, "response", r->response, out, err));
    if (r && r->response_params && r->response_params[0])
        ST_TRY(parse_params(mgr, "responseParams", r->response_params, out, err));
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
    .init = response_init,
    .cleanup = response_cleanup,
};

const st_class rule_based_contact_manager_class = {
    .struct_size = sizeof(st_class),
    .name = "RuleBasedContactManager",
    .category = "CollisionAlgorithm",
    .description = "Create different response to the collisions based on a set of rules.",
    .instance_size = sizeof(response),
    .fields = rule_fields,
    .init = response_init,
    .cleanup = response_cleanup,
};

bool st_is_contact_manager(const st_component *c)
{
    return c->cls == &collision_response_class || c->cls == &rule_based_contact_manager_class;
}
