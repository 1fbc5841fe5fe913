/* sym3_eigen.c - see sym3_eigen.h. */
#include "sym3_eigen.h"

#include <math.h>
#include <string.h>

/* Eigen-decomposition of a symmetric 3x3 matrix by cyclic Jacobi
 * rotations: s = V diag(w) V^T, eigenvectors in the columns of v. */
void sym3_eigen(const double s_in[9], double w[3], double v[9])
{
    double a[9];
    memcpy(a, s_in, sizeof a);
    for (int i = 0; i < 9; i++)
        v[i] = i % 4 == 0 ? 1.0 : 0.0;
    for (int sweep = 0; sweep < 50; sweep++) {
        double off = fabs(a[1]) + fabs(a[2]) + fabs(a[5]);
        if (off < 1e-300)
            break;
        for (int p = 0; p < 2; p++)
            for (int r = p + 1; r < 3; r++) {
                double apr = a[3 * p + r];
                if (apr == 0.0)
                    continue;
                double theta = (a[3 * r + r] - a[3 * p + p]) / (2 * apr);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), sn = t * c;
                for (int k = 0; k < 3; k++) { /* columns p, r */
                    double akp = a[3 * k + p], akr = a[3 * k + r];
                    a[3 * k + p] = c * akp - sn * akr;
                    a[3 * k + r] = sn * akp + c * akr;
                }
                for (int k = 0; k < 3; k++) { /* rows p, r */
                    double apk = a[3 * p + k], ark = a[3 * r + k];
                    a[3 * p + k] = c * apk - sn * ark;
                    a[3 * r + k] = sn * apk + c * ark;
                }
                for (int k = 0; k < 3; k++) {
                    double vkp = v[3 * k + p], vkr = v[3 * k + r];
                    v[3 * k + p] = c * vkp - sn * vkr;
                    v[3 * k + r] = sn * vkp + c * vkr;
                }
            }
    }
    for (int i = 0; i < 3; i++)
        w[i] = a[4 * i];
}
