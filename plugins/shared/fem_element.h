/* fem_element.h - SOFA's finite element descriptions (sofa::fem::FiniteElement)
 * for the element framework shared by LinearSmallStrainFEMForceField,
 * CorotationalFEMForceField (SolidMechanics.FEM.Elastic) and FEMMass (Mass):
 * reference nodes, shape functions, their gradients and quadrature rules of
 * the linear edge, triangle, tetrahedron, prism and pyramid, the bilinear
 * quad and the trilinear hexahedron, and the element matrices integrated
 * with them in a space of dimension d (1, 2 or 3: SOFA's Vec1d, Vec2d,
 * Vec3d). Node coordinates are flat, d per node. */
#ifndef SETTEE_PLUGIN_SHARED_FEM_ELEMENT_H
#define SETTEE_PLUGIN_SHARED_FEM_ELEMENT_H

#include <stdbool.h>
#include <stddef.h>

#include <settee/settee.h>

/* In SOFA's order of its template names (the factory's map is sorted by
 * name: Edge, Hexahedron, Prism, Pyramid, Quad, Tetrahedron, Triangle). */
typedef enum {
    FE_EDGE = 0,
    FE_HEXAHEDRON,
    FE_PRISM,
    FE_PYRAMID,
    FE_QUAD,
    FE_TETRAHEDRON,
    FE_TRIANGLE,
    FE_KINDS
} fe_kind;

#define FE_MAX_NODES 8
#define FE_MAX_DOFS (3 * FE_MAX_NODES)

/* SOFA's name of the element type ("Edge", "Triangle", ...). */
const char *fe_kind_name(fe_kind k);
/* Reads a SOFA template "Vec<d>d,<Element>" (or with the alias Vec<d>):
 * the space dimension d and the element kind. False when the text is not
 * of that form. Whether the pair is registered is fe_registered's answer. */
bool fe_parse_template(const char *templ, int *d, fe_kind *k);
/* True when SOFA registers the pair: edges in 1, 2 and 3 dimensions,
 * triangles and quads in 2 and 3, the volume elements in 3. */
bool fe_registered(int d, fe_kind k);

/* Nodes, topological dimension, quadrature points of an element. */
int fe_nodes(fe_kind k);
int fe_topo_dim(fe_kind k);
int fe_quadrature_count(fe_kind k);
/* Quadrature point i (reference coordinates, fe_topo_dim of them) and its
 * weight, SOFA's rules: one point for edges (weight 2), triangles (1/2)
 * and tetrahedra (1/6); quads three points of weight 4/3; prisms two
 * points of weight 1/4; hexahedra and pyramids the 2x2x2 Gauss points at
 * +-1/1.73205080757 (SOFA's truncated sqrt(3)), weight 1. */
void fe_quadrature(fe_kind k, int i, double q[3], double *w);
/* Shape functions N (fe_nodes values) and their reference gradients dN
 * (fe_nodes x 3, the first fe_topo_dim columns used) at q. */
void fe_shape(fe_kind k, const double q[3], double *N);
void fe_shape_gradient(fe_kind k, const double q[3], double (*dN)[3]);

/* SOFA's toLameParameters in d dimensions: mu = E / (2 (1 + nu)),
 * lambda = E nu / ((1 + nu) (1 - (d - 1) nu)). */
void fe_lame(double young, double poisson, int d, double *lambda, double *mu);
/* The element stiffness K (d n x d n row-major, n = fe_nodes, dof order
 * node-major) of isotropic linear elasticity in d dimensions: sum over the
 * quadrature points of w |det J| B^T C B, J the d x t Jacobian of the
 * reference map, |det J| its generalized determinant sqrt(det J^T J) and
 * the physical gradients from its left pseudo-inverse when t < d. False
 * when an element is degenerate (|det J| = 0 at a quadrature point). */
bool fe_stiffness(fe_kind k, int d, const double *x, double lambda, double mu, double *K);
/* The element mass matrix M (n x n, row-major): sum over the quadrature
 * points of w |det J| rho(q) N N^T with rho interpolated from the nodal
 * densities rho_n. */
void fe_mass(fe_kind k, int d, const double *x, const double *rho_n, double *M);

/* The elements of kind k of the topology topo (fe_nodes indices each, in
 * the topology's order) and their count in *n: edges to hexahedra from the
 * topology's element lists (derived from the higher elements where the
 * container derives them, as SOFA's getEdges, getTriangles do), prisms and
 * pyramids from its "prisms" and "pyramids" lists. NULL when none. */
const unsigned *fe_topology_elements(st_component *topo, fe_kind k, size_t *n);

#endif
