/* roi.h - what BoxROI and SphereROI share: one instance layout, the
 * default links of their inputs and the selection loop. Private to the
 * Engine.Select plugin. */
#ifndef SETTEE_PLUGIN_ROI_H
#define SETTEE_PLUGIN_ROI_H

#include <settee/settee.h>

typedef struct roi roi;

/* Region test of one ROI kind: is point p inside region r (or any region
 * when r is (size_t)-1)? */
typedef bool (*roi_inside_fn)(const roi *self, const double *p, size_t r);

struct roi {
    st_component base;
    /* Regions. */
    st_array box;          /* BoxROI "box": 6 reals per box */
    st_array oriented_box; /* BoxROI "orientedBox": 10 reals per box */
    st_array centers;      /* SphereROI "centers" */
    st_array radii;        /* SphereROI "radii" */
    st_vec3 direction, normal;
    double edge_angle, tri_angle;
    st_array roi_position;  /* MeshROI "ROIposition": coord[] */
    st_array roi_edges, roi_triangles; /* MeshROI "ROIedges", "ROItriangles" */
    bool compute_mesh_roi;  /* MeshROI "computeMeshROI" */
    bool draw_out, draw_box; /* MeshROI display (no-op) */
    /* Inputs. */
    st_array position;     /* vec3[]: rest positions by default */
    st_array edges, triangles, quads, tetrahedra, hexahedra;
    bool compute_edges, compute_triangles, compute_quads, compute_tetrahedra, compute_hexahedra;
    bool strict;           /* all vertices inside (true) or the barycentre only */
    bool do_update;        /* recompute when inputs change */
    /* Outputs. */
    st_array indices, edge_indices, triangle_indices, quad_indices, tetrahedron_indices,
        hexahedron_indices;
    st_array points_in_roi, edges_in_roi, triangles_in_roi, quads_in_roi, tetrahedra_in_roi,
        hexahedra_in_roi;
    unsigned nb_indices;
    st_array indices_out, points_out_roi, edge_out_indices, edges_out_roi, triangle_out_indices,
        triangles_out_roi, quad_out_indices, quads_out_roi, tetrahedron_out_indices,
        tetrahedra_out_roi, hexahedron_out_indices, hexahedra_out_roi;
    /* Display (no-op headless). */
    bool draw_roi, draw_points, draw_edges, draw_triangles, draw_quads, draw_tetrahedra,
        draw_hexahedra;
    double draw_size;
    /* State. */
    roi_inside_fn inside;
    size_t nregions;       /* number of regions, for per-region element tests */
    bool per_region_elements; /* an element must lie in one region (SphereROI) */
    bool vertices_first;   /* non-strict: an element whose vertices are all inside is inside,
                              else its centre decides (MeshROI) */
    bool defaults_linked;  /* default input links were made */
    bool computed_once;
    unsigned cw, sp;       /* the state type's coordinate and position sizes (set by roi_compute) */
};

/* Links the inputs the scene left unset to the node's state, loader and
 * topology, as SOFA's ROIs do. Call from update (after init). */
st_status roi_link_defaults(roi *r, st_error *err);
/* Recomputes every output from the inputs with r->inside. */
st_status roi_compute(roi *r, st_error *err);

#endif
