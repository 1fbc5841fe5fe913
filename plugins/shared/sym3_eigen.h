/* sym3_eigen.h - eigen-decomposition of a symmetric 3x3 matrix (cyclic
 * Jacobi rotations), shared by the plugins that need it (FEM rotations,
 * RigidMapping's stabilized geometric stiffness). Compiled into each plugin
 * that uses it. */
#ifndef SETTEE_SHARED_SYM3_EIGEN_H
#define SETTEE_SHARED_SYM3_EIGEN_H

/* s = V diag(w) V^T (s row-major, symmetric); eigenvectors in the columns
 * of v. */
void sym3_eigen(const double s[9], double w[3], double v[9]);

#endif
