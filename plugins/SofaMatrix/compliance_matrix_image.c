/* compliance_matrix_image.c - ComplianceMatrixImage (SOFA's SofaMatrix
 * plugin): shows a constraint solver's compliance matrix W as an image in
 * the GUI. settee is headless: the component finds its constraint solver
 * (the constraintSolver link, else the first of its node and ancestors) and
 * draws nothing; Python reads the matrix with the solver's W(), and
 * ComplianceMatrixExporter writes the same image to files (png, bmp, tga). */
#include <stddef.h>

#include <settee/settee.h>

typedef struct compliance_image {
    st_component base;
    st_component *solver; /* "constraintSolver" */
    char *bitmap;         /* "bitmap" (the GUI's image; ignored) */
} compliance_image;

static bool is_constraint_solver(const st_component *c)
{
    return c && c->cls->constraint_solver;
}

static st_status image_init(st_component *self, st_error *err)
{
    compliance_image *m = (compliance_image *)self;
    if (m->solver) {
        if (!is_constraint_solver(m->solver))
            return st_component_error(self, "constraintSolver", err, ST_ELINK,
                                      "%s is a %s, not a constraint solver "
                                      "(GenericConstraintSolver ...)",
                                      m->solver->name, m->solver->cls->name);
        return ST_OK;
    }
    for (st_node *n = self->node; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++)
            if (is_constraint_solver(st_node_object(n, i))) {
                m->solver = st_node_object(n, i);
                return ST_OK;
            }
    /* SOFA logs an error (and then dereferences the missing solver). */
    st_component_warn(self, "no constraint solver linked (constraintSolver) nor in its context: "
                            "it shows nothing");
    return ST_OK;
}

static const st_field fields[] = {
    ST_IGNORED(compliance_image, bitmap, "bitmap", ST_T_STRING, char *, "",
               "Visualization of the representation of the matrix as a binary image. White "
               "pixels are zeros, black pixels are non-zeros. (settee is headless: not drawn)"),
    ST_LINK(compliance_image, solver, "constraintSolver", ST_LINK_ANY,
            "Link to the constraint solver containing a compliance matrix"),
    ST_FIELD_END};

const st_class compliance_matrix_image_class = {
    .struct_size = sizeof(st_class),
    .name = "ComplianceMatrixImage",
    .category = "Visual",
    .description = "View the compliance matrix as an binary image (settee is headless: the "
                   "solver is found, nothing is drawn)",
    .instance_size = sizeof(compliance_image),
    .fields = fields,
    .init = image_init,
};
