/* fem_element.h - SOFA's finite element descriptions (sofa::fem::FiniteElement)
 * for the element framework shared by LinearSmallStrainFEMForceField,
 * CorotationalFEMForceField (SolidMechanics.FEM.Elastic) and FEMMass (Mass):
 * reference nodes, shape functions, their gradients and quadrature rules of
 * the linear tetrahedron and the trilinear hexahedron, and the element
 * matrices integrated with them. */
#ifndef SETTEE_PLUGIN_SHARED_FEM_ELEMENT_H
#define SETTEE_PLUGIN_SHARED_FEM_ELEMENT_H

#include <stdbool.h>

typedef enum { FE_TETRAHEDRON = 0, FE_HEXAHEDRON, FE_KINDS } fe_kind;

#define FE_MAX_NODES 8
#define FE_MAX_DOFS (3 * FE_MAX_NODES)

/* The element kind of a SOFA template "Vec3d,Tetrahedron" or
 * "Vec3d,Hexahedron" (or with SOFA's alias Vec3); false for any other. */
bool fe_kind_of_template(const char *templ, fe_kind *k);

/* Nodes per element, quadrature points per element. */
int fe_nodes(fe_kind k);
int fe_quadrature_count(fe_kind k);
/* Quadrature point i (reference coordinates) and its weight: the
 * tetrahedron's centroid with weight 1/6; the hexahedron's 2x2x2 Gauss
 * points at the reference nodes divided by SOFA's sqrt(3) constant
 * 1.73205080757, weight 1. */
void fe_quadrature(fe_kind k, int i, double q[3], double *w);
/* Shape functions N (fe_nodes values) and their reference gradients dN
 * (fe_nodes x 3) at q. */
void fe_shape(fe_kind k, const double q[3], double *N);
void fe_shape_gradient(fe_kind k, const double q[3], double (*dN)[3]);
/* The Jacobian J = sum_i x_i dN_i^T (row-major 3x3) of the map from the
 * reference element to the nodes x (fe_nodes points). */
void fe_jacobian(fe_kind k, const double (*x)[3], const double (*dN)[3], double J[9]);

/* SOFA's toLameParameters in 3D. */
void fe_lame(double young, double poisson, double *lambda, double *mu);
/* The element stiffness K (3n x 3n row-major, n = fe_nodes, dof order
 * node-major) of isotropic linear elasticity: sum over the quadrature
 * points of w |det J| B^T C B. False when an element is degenerate
 * (|det J| = 0 at a quadrature point). */
bool fe_stiffness(fe_kind k, const double (*x)[3], double lambda, double mu, double *K);
/* The element mass matrix M (n x n, row-major): sum over the quadrature
 * points of w |det J| rho(q) N N^T with rho interpolated from the nodal
 * densities rho_n. */
void fe_mass(fe_kind k, const double (*x)[3], const double *rho_n, double *M);

#endif
