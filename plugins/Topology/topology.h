/* topology.h - what the Topology plugin's containers share: one instance
 * struct for MeshTopology, the grids and the dynamic containers, and the
 * helpers that derive element lists the way SOFA derives them. Private to
 * this plugin. */
#ifndef SETTEE_PLUGIN_TOPOLOGY_H
#define SETTEE_PLUGIN_TOPOLOGY_H

#include <settee/settee.h>

#include "../shared/tuple_set.h"

typedef enum topo_kind {
    TOPO_MESH = 0,     /* MeshTopology: lists given, missing ones derived */
    TOPO_GRID,         /* GridTopology: grid lists, positions from `position` */
    TOPO_REGULAR_GRID, /* RegularGridTopology: grid lists and geometry */
    TOPO_DYNAMIC,      /* ...SetTopologyContainer */
    TOPO_CYLINDER_GRID, /* CylinderGridTopology: grid lists, points on a cylinder */
    TOPO_SPHERE_GRID    /* SphereGridTopology: grid lists, points on a sphere */
} topo_kind;

/* One instance layout for every container class; each class's field table
 * names the members it exposes. */
typedef struct topo {
    st_component base;
    /* MeshTopology / containers: the lists (SOFA's Data names). */
    st_array position;   /* vec3[], "position" (alias "points") */
    st_array edges;      /* "edges" (alias "lines") */
    st_array triangles;  /* "triangles" */
    st_array quads;      /* "quads" */
    st_array tetrahedra; /* "tetrahedra" (alias "tetras") */
    st_array hexahedra;  /* "hexahedra" (alias "hexas") */
    st_array uv;         /* "uv" (alias "texcoords"), 2 reals per point */
    st_array prisms;     /* "prisms", 6 indices each (element framework only) */
    st_array pyramids;   /* "pyramids", 5 indices each (element framework only) */
    char *filename;      /* "filename" (alias "fileTopology"): a mesh file read into the lists */
    st_component *src;   /* "src": a loader whose lists are copied when not given */
    bool compute_all_buffers;
    bool draw_edges, draw_triangles, draw_quads, draw_tetrahedra, draw_hexahedra;
    /* Dynamic containers. */
    unsigned nb_points;  /* "nbPoints" */
    bool check_topology; /* "checkTopology" */
    bool check_connexity;/* "checkConnexity" */
    bool create_triangle_array, create_quad_array; /* ignored */
    /* Grids. */
    st_vec3 n;           /* "n": resolution per axis (integers) */
    int nx, ny, nz;      /* parse-only "nx ny nz" */
    st_vec3 min, max;    /* "min", "max" */
    st_vec3 p0;          /* "p0" */
    double xmin, ymin, zmin, xmax, ymax, zmax; /* parse-only, read as float */
    double scale;        /* parse-only "scale" applied to xmin..zmax */
    double cell_width;   /* "cellWidth" */
    bool compute_hexa_list, compute_quad_list, compute_triangle_list, compute_edge_list;
    bool compute_point_list, create_tex_coords;
    /* CylinderGridTopology, SphereGridTopology. */
    st_vec3 center, axis; /* "center", "axis" */
    double radius;        /* "radius" */
    double length;        /* "length" (cylinder) */
    /* CubeTopology. */
    bool internal_points; /* "internalPoints" */
    bool split_normals;   /* "splitNormals" */
    bool sphere_quad;     /* the class is SphereQuadTopology (center, radius) */
    /* SparseGridTopology. */
    bool fill_weighted;       /* "fillWeighted" */
    bool only_inside_cells;   /* "onlyInsideCells" */
    int nb_virtual_finer;     /* "nbVirtualFinerLevels" */
    st_vec3 data_resolution;  /* "dataResolution" (.raw voxel files) */
    st_vec3 voxel_size;       /* "voxelSize" (.raw voxel files) */
    unsigned mc_step;         /* "marchingCubeStep" (ignored: marching cubes) */
    unsigned conv_size;       /* "convolutionSize" (ignored: marching cubes) */
    st_array facets;          /* "facets": refused when given */
    st_array cell_types;      /* "cellTypes" output: 1 boundary, 2 inside, per hexahedron */
    st_array stiffness_coefs; /* "stiffnessCoefs" output (fillWeighted: 0.5 on the boundary) */
    st_array mass_coefs;      /* "massCoefs" output */
    bool sparse_built;        /* built once, as SOFA's init */
    /* SparseGridRamificationTopology. */
    bool ramification;        /* the class is SparseGridRamificationTopology */
    bool finest_connectivity; /* "finestConnectivity" */
    /* Hidden outputs read by BarycentricMapping (SOFA's findCube and
     * findNearestCube through the finest level): the finest grid, its
     * regular cells' coarsest hexahedra (UINT_MAX: none), and the cells
     * searched for the nearest one, in the finest level's order. */
    st_vec3 finest_n, finest_min, finest_max;
    st_array finest_cells;    /* "finestCells" */
    st_array finest_nearest;  /* "finestNearestCells" */
    /* Hidden output read by NonUniformHexahedronFEMForceFieldAndMass (SOFA's
     * virtual finer levels): per regular cell of the finest level, its
     * stiffness coefficient (0: no hexahedron). With finestCells and
     * finestN/Min/Max, set whenever nbVirtualFinerLevels > 0. */
    st_array finest_kcoefs;   /* "finestStiffnessCoefs" */
    /* SparseGridMultipleTopology. */
    bool multiple;            /* the class is SparseGridMultipleTopology */
    st_array file_topologies; /* "fileTopologies": surfaces (strings) */
    st_array data_stiffness;  /* "stiffnessCoefs": one per file (float) */
    st_array data_mass;       /* "massCoefs": one per file (float) */
    bool compute_ramifications; /* "computeRamifications" */
    bool erase_previous_coef;   /* "erasePreviousCoef" */
    /* DynamicSparseGridTopologyContainer. */
    st_vec3 dsg_resolution;  /* "resolution" (integers) */
    st_array dsg_grid_values; /* "valuesIndexedInRegularGrid" */
    st_array dsg_topo_values; /* "valuesIndexedInTopology" */
    st_array dsg_idx_in_grid; /* "idxInRegularGrid" */
    st_array dsg_grid2topo;   /* "idInRegularGrid2IndexInTopo": (grid id, hexahedron) pairs */
    /* MultilevelHexahedronSetTopologyContainer (resolution and
     * idxInRegularGrid in the members above). */
    int ml_level;             /* "level" */
    st_array ml_coarse;       /* "coarseComponents": per hexahedron, its component's voxel */
    st_array ml_fine;         /* "fineComponents": per hexahedron, its component's voxel */
    /* State. */
    topo_kind kind;
    bool lists_ready;    /* element lists computed (or derived) */
    bool grid_warned;    /* the resolution warning was sent */
    bool file_read;      /* `filename` was read into the lists */
} topo;

/* Resolution, origin and spacing of a grid, computed from its fields as
 * SOFA's grid computes them at parse time. */
typedef struct grid_geom {
    int n[3];
    double p0[3];
    double d[3][3]; /* Dx, Dy, Dz */
} grid_geom;

void topo_grid_geom(topo *t, grid_geom *g);
/* True for the grid kinds (GridTopology and the classes built on it). */
bool topo_is_grid(const topo *t);
/* Refuses a resolution that is not integral or needs more memory (or more
 * points than 32-bit indices reach) than the machine has, before any
 * allocation; the error names the field and the amount. */
st_status topo_grid_check(topo *t, st_error *err);
/* Fills a grid's element lists (hexahedra, quads, triangles, edges). */
st_status topo_grid_lists(topo *t, st_error *err);
/* Derives the lists a MeshTopology or container lacks. */
st_status topo_mesh_derive(topo *t, st_error *err);
/* Copies the loader's lists into those not set by the scene. */
st_status topo_copy_src(topo *t, st_error *err);
/* Ensures the lists are ready (grid lists computed, mesh lists derived). */
st_status topo_ensure_lists(topo *t, st_error *err);

/* Whether the container can remove or add elements of kind elem while the
 * scene runs (st_topology_ops.can_change): dynamic containers only, of the
 * kinds their class holds (points can always be added). */
bool topo_can_change(const st_component *self, st_topo_change change, st_elem elem);
/* Removes elements of a dynamic container (st_topology_ops.remove,
 * dynamic_change.c). */
st_status topo_remove(st_component *self, st_elem elem, const unsigned *ids, size_t n,
                      st_error *err);
/* The same with SOFA's flags (removeTriangles(ids, removeIsolatedEdges,
 * removeIsolatedPoints)): isolated_subs removes the faces and edges only
 * the removed elements used, isolated_points the points. */
st_status topo_remove_ex(st_component *self, st_elem elem, const unsigned *ids, size_t n,
                         bool isolated_subs, bool isolated_points, st_error *err);
/* Appends n elements of kind elem (n * st_elem_vertices(elem) vertex
 * indices) to a dynamic container, as SOFA's addEdges / addTriangles /
 * addQuads / addTetrahedra / addHexahedra: a face's missing edges
 * (t[(j+1)%w], t[(j+2)%w]), j = 0..w-1, are appended before it, oriented as
 * in the face; a volume's missing faces (SOFA's orientation of each slot,
 * with their edges) before it; nbPoints grows to cover the indices. The
 * change is announced once: [edges added, faces added, elements added]. */
st_status topo_add(st_component *self, st_elem elem, const unsigned *verts, size_t n,
                   st_error *err);

/* Appends n points to a dynamic container (st_topology_ops.add_points,
 * SOFA's addPoints with ancestors and coefficients, all NULL or all
 * given): its positions, when it has them, get the ancestors' weighted
 * places; the change is announced as [points added]. */
st_status topo_add_points(st_component *self, size_t n, const size_t *ancestor_start,
                          const unsigned *ancestors, const double *coefs, st_error *err);

/* Shared role interface and lifecycle of every container. */
extern const st_topology_ops topo_ops;
st_status topo_init(st_component *self, st_error *err);
/* The `parsed` hook of MeshTopology and the dynamic containers: reads
 * `filename` as soon as the scene sets it, so that components before the
 * container in its node (a MechanicalObject) see its points at their init. */
st_status topo_parsed(st_component *self, st_error *err);
st_status topo_reinit(st_component *self, st_error *err);
/* topo_reinit for a container class with its own init: the file and grid
 * warnings are read and given again, then init runs. */
st_status topo_reinit_with(st_component *self, st_error *err,
                           st_status (*init)(st_component *, st_error *));

/* True when node n holds a component of class a or of class b (b may be
 * NULL): the topological mappings look for their output's modifier. */
bool topo_node_has_class(st_node *n, const char *a, const char *b);

/* Sorts n (small) values in place, ascending. */
void topo_sort_small(unsigned *v, unsigned n);

/* Appends a tuple to an element list of type `type`. */
st_status topo_push(st_array *a, st_type type, const unsigned *v, st_error *err);


/* ---- topological mappings (topo_mapping.c) ---- */

/* The "input" and "output" link fields every topological mapping has. */
#define TOPO_MAP_LINKS(S, in_help, out_help)                                                      \
    {"input", ST_T_LINK, offsetof(S, input) + ST_FIELD_CHECK_(S, input, st_component *), NULL,    \
     in_help, ST_F_REQUIRED, NULL, ST_LINK_TOPOLOGY, 0.0, 0.0},                                   \
    {"output", ST_T_LINK, offsetof(S, output) + ST_FIELD_CHECK_(S, output, st_component *), NULL, \
     out_help, ST_F_REQUIRED, NULL, ST_LINK_TOPOLOGY, 0.0, 0.0}

/* Checks a mapping's links: `input` is a topology (holding `in_what`),
 * `output` a container of this plugin with the list field `list` and of
 * kind `kind`; `want` names the expected output class in the message. */
st_status topo_map_check(st_component *self, st_component *input, st_component *output,
                         const char *in_what, const char *list, topo_kind kind, const char *want,
                         st_error *err);
/* Starts filling the output: empties `lists` (NULL-terminated field names)
 * and gives it the input's number of points. */
void topo_map_begin(st_component *input, topo *out, const char *const *lists);
/* Ends filling the output: marks `list` and nbPoints as changed and derives
 * the container's other lists from the new ones. */
st_status topo_map_end(topo *out, const char *list, st_error *err);
/* Number of cells along x and y when `input` is a grid (SOFA's getNx()-1,
 * getNy()-1); false otherwise. */
bool topo_map_grid_cells(st_component *input, int *nx, int *ny);
/* Counts, for every element of `list` (width w), how many elements of
 * `owners` (width ow, faces given by `faces`, nf faces of fw vertices each)
 * hold it as a face; counts[i] for list element i. The caller frees. */
st_status topo_map_count_owners(const st_array *list, unsigned w, const st_array *owners,
                                unsigned ow, const unsigned *faces, unsigned nf,
                                unsigned **counts, st_error *err);
/* True when node n or one of its ancestors holds a component of one of
 * `classes` (NULL-terminated): SOFA's context search for a modifier of the
 * output (a class or one of its subclasses). */
bool topo_map_find_modifier(st_node *n, const char *const *classes);

/* ---- topological changes through a mapping (topo_mapping.c) ----
 *
 * SOFA's updateTopologicalMappingTopDown: the mapping listens to its input
 * and replays each change on its output through the output container's own
 * removal and addition (each announced to the output's followers). Loc2Glob
 * (output element -> input face) follows the output's elements (the kernel
 * moves it as the output changes); Glob2Loc is its inverse. The listener
 * sees the input after the change: it keeps a copy of the input's volumes
 * and faces as they were before ("shadow"), as SOFA's mappings read them
 * before the input's process. */
typedef struct topo_map_prop topo_map_prop;
typedef struct topo_map_desc {
    st_elem vol;  /* input elements whose removal exposes faces (POINT: none) */
    st_elem face; /* input elements the output elements come from */
    st_elem out;  /* output elements */
    /* Faces of a vol by slot (SOFA's XInY slot order), oriented outward:
     * nslots * st_elem_vertices(face) local vertex indices. */
    const unsigned *slots;
    unsigned nslots;
    /* Output removal batched in one call (Tetra2Triangle) or one input
     * face at a time (Hexa2Quad, Triangle2Edge, Quad2Triangle). */
    bool batch;
    /* The output element for face g of the surviving vol `other` (its slot
     * pos), SOFA's orientation (out: st_elem_vertices(out) values). */
    void (*exposed)(const topo_map_prop *p, const unsigned *other, unsigned pos, unsigned g,
                    unsigned *out);
    /* Input faces added (QUADSADDED, TRIANGLESADDED): appends the output
     * elements to create (may be NULL: ignored, as SOFA's). */
    st_status (*faces_added)(topo_map_prop *p, const st_topo_event *ev, st_error *err);
    /* Edges added to the input are added to the output too (SOFA's
     * EDGESADDED of Tetra2Triangle). */
    bool copy_edges;
    /* Points added to the input are added to the output (SOFA's
     * POINTSADDED: all but Hexa2Quad). */
    bool copy_points;
} topo_map_desc;

struct topo_map_prop {
    const topo_map_desc *d;
    st_component *self, *input, *output;
    bool flip;            /* flipNormals */
    bool no_new;          /* noNewTriangles */
    unsigned *loc2glob;   /* followed by the output's elements */
    size_t nloc;
    const unsigned *pending; /* globals of the output elements being added */
    unsigned *shadow[2];  /* input vols and faces before the change */
    size_t nshadow[2];
    /* Elements to add to the output: vertices and their input faces. */
    unsigned *add_v, *add_g;
    size_t nadd, cap_v, cap_g;
    bool registered;
};

/* Sets up the propagation after init filled the output and p->loc2glob
 * (registers once: the follower on the output and the input's listener). */
st_status topo_map_prop_init(topo_map_prop *p, st_topo_listener fn, st_error *err);
/* Replays a change of the input (the mapping's listener calls it). */
st_status topo_map_prop_changed(topo_map_prop *p, const st_topo_event *ev, size_t nev,
                                st_error *err);
/* Listens (doing nothing) to the topologies above the mapping other than
 * its input and output: it holds nothing indexed by them. */
st_status topo_map_listen_others(st_component *self, st_component *input, st_component *output,
                                 st_error *err);
/* Appends the input face g of the next output element at init. */
st_status topo_map_loc_push(topo_map_prop *p, unsigned g, st_error *err);
/* Queues one output element (its vertices, its input face). */
st_status topo_map_prop_queue(topo_map_prop *p, const unsigned *v, unsigned g, st_error *err);
/* Checkpoints: read, the copies of the input's vols and faces are made
 * again from its restored lists (Loc2Glob, a followed array, is restored
 * by the kernel). */
st_status topo_map_prop_checkpoint(topo_map_prop *p, st_checkpoint *ck, st_error *err);
/* A mapping class's checkpoint role, for a struct whose member `prop` is
 * its topo_map_prop. */
#define TOPO_MAP_CHECKPOINT(type)                                                                 \
    static st_status type##_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)    \
    {                                                                                             \
        return topo_map_prop_checkpoint(&((type *)self)->prop, ck, err);                          \
    }                                                                                             \
    static const st_checkpoint_ops type##_checkpoint_ops = {sizeof(st_checkpoint_ops),            \
                                                           type##_checkpoint}

/* Input vols added: the new border faces added to the output, those no
 * longer on the border removed (a faces_added hook). */
st_status topo_map_vols_added(topo_map_prop *p, const st_topo_event *ev, st_error *err);
/* Adds the queued elements to the output. */
st_status topo_map_prop_flush(topo_map_prop *p, st_error *err);
void topo_map_prop_free(topo_map_prop *p);

#endif
