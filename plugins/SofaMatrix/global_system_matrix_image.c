/* global_system_matrix_image.c - GlobalSystemMatrixImage (SOFA's SofaMatrix
 * plugin): shows a linear system's matrix as an image in the GUI. settee is
 * headless: the component finds its linear system (the linearSystem link,
 * else the first linear system of its node and ancestors) and draws
 * nothing; Python reads the matrix with the system's A(). */
#include <string.h>

#include <settee/settee.h>

typedef struct matrix_image {
    st_component base;
    st_component *system; /* "linearSystem" */
    char *bitmap;         /* "bitmap" (the GUI's image; ignored) */
} matrix_image;

static bool is_linear_system(const st_component *c)
{
    return c && c->cls->category && !strcmp(c->cls->category, "LinearSystem");
}

static st_status image_init(st_component *self, st_error *err)
{
    matrix_image *m = (matrix_image *)self;
    if (m->system) {
        if (!is_linear_system(m->system))
            return st_component_error(self, "linearSystem", err, ST_ELINK,
                                      "%s is a %s, not a linear system (MatrixLinearSystem ...)",
                                      m->system->name, m->system->cls->name);
        return ST_OK;
    }
    for (st_node *n = self->node; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++) {
            st_component *c = st_node_object(n, i);
            if (is_linear_system(c)) {
                m->system = c;
                return ST_OK;
            }
        }
    /* SOFA logs an error and shows nothing. */
    st_component_warn(self, "no linear system linked (linearSystem) nor in its context: it "
                            "shows nothing");
    return ST_OK;
}

static const st_field fields[] = {
    ST_LINK(matrix_image, system, "linearSystem", ST_LINK_ANY,
            "Link to the linear system containing a matrix (else the first one of the context)"),
    ST_IGNORED(matrix_image, bitmap, "bitmap", ST_T_STRING, char *, "",
               "Visualization of the representation of the matrix as a binary image (settee is "
               "headless: not drawn)"),
    ST_FIELD_END};

const st_class global_system_matrix_image_class = {
    .struct_size = sizeof(st_class),
    .name = "GlobalSystemMatrixImage",
    .category = "Visual",
    .description = "Image of a linear system's matrix in the GUI (settee is headless: the "
                   "system is found, nothing is drawn)",
    .instance_size = sizeof(matrix_image),
    .fields = fields,
    .init = image_init,
};
