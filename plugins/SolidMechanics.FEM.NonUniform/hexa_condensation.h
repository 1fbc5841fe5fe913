/* hexa_condensation.h - NonUniformHexahedralFEMForceFieldAndMass's
 * condensation of fine voxels onto the coarse hexahedron that holds them
 * (Nesme, Payan, Faure 2006), without any scene object: the tests compile
 * hexa_condensation.c in and check it against closed forms. */
#ifndef SETTEE_PLUGIN_HEXA_CONDENSATION_H
#define SETTEE_PLUGIN_HEXA_CONDENSATION_H

#include <stdbool.h>
#include <stddef.h>

/* Levels accepted: 2^level fine voxels per axis of a coarse hexahedron. */
enum { HCOND_MAX_LEVEL = 16 };

/* w[k][j]: weight of coarse corner j at corner k of the fine voxel whose
 * position inside the coarse hexahedron is o (0 .. 2^level - 1 per axis):
 * the trilinear shape function of j there (SOFA's _H[level][voxel], its
 * vertex order 0 (-,-,-), 1 (+,-,-), 2 (+,+,-), 3 (-,+,-), 4..7 at +z). */
void hcond_interpolation(double w[8][8], const int o[3], int level);

/* coarse += P^T fine P, P = w (x) I3 (24 x 24): SOFA's addHtfineHtoCoarse. */
void hcond_add(double coarse[24][24], const double fine[24][24], const double w[8][8]);

/* SOFA's mass of one fine voxel of total mass m: the trilinear consistent
 * mass m/216 * 2^(axes along which vertices u and v agree), per axis. */
void hcond_voxel_mass(double M[24][24], double m);

/* K, M (zeroed first) and *mass of a coarse hexahedron at `level` from its
 * nv fine voxels vox (fine-grid positions; their positions inside the
 * hexahedron are taken modulo 2^level), each of stiffness K_fine, mass
 * M_fine and total mass m_fine:
 *   all 8^level voxels present: K = 2^level K_fine, M = 8^level M_fine
 *     (a box's stiffness grows as its size, its mass as its volume);
 *   recursive: each octant's matrices recursively from its own voxels,
 *     then the 8 octants onto their parent with level-1 interpolations;
 *   otherwise: the sum over the voxels of P^T K_fine P and P^T M_fine P
 *     (the sum SOFA's interval analysis groups by full aligned blocks).
 * The voxels must be distinct. Returns false when out of memory. */
bool hcond_condense(double K[24][24], double M[24][24], double *mass, const double K_fine[24][24],
                    const double M_fine[24][24], double m_fine, int level, const int (*vox)[3],
                    size_t nv, bool recursive);

#endif
