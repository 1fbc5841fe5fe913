/* contact_resolution.c - see contact_resolution.h. */
#include <math.h>
#include <stdbool.h>

#include "contact_resolution.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

void contact_frame(const double n[3], double t[3], double s[3])
{
    double t0[3] = {n[2], n[0], n[1]};
    cross3(n, t0, s);
    double ns = sqrt(dot3(s, s));
    if (ns > 0.0)
        for (int k = 0; k < 3; k++)
            s[k] /= ns;
    double mn[3] = {-n[0], -n[1], -n[2]};
    cross3(mn, s, t);
}

void contact_violation(const double P[3], const double Q[3], const double Pf[3],
                       const double Qf[3], const double n[3], const double t[3],
                       const double s[3], double dist, double out[3])
{
    double PP[3], QQ[3], d[3], pq[3];
    for (int k = 0; k < 3; k++) {
        PP[k] = Pf[k] - P[k];
        QQ[k] = Qf[k] - Q[k];
        d[k] = Pf[k] - Qf[k];
        pq[k] = P[k] - Q[k];
    }
    double ref = sqrt(dot3(PP, PP)) + sqrt(dot3(QQ, QQ));
    double dfree = dot3(d, n) - dist;
    double delta = dot3(pq, n) - dist;
    double ft = 0.0, fs = 0.0;
    bool from_detection = false;
    if (fabs(delta) < 1e-5 * ref && fabs(dfree) < 1e-5 * ref) {
        from_detection = true;
    } else if (fabs(delta - dfree) > 0.001 * delta) {
        double a = delta / (delta - dfree);
        if (a > 0.0 && a < 1.0) {
            /* From the instant the gap closed, on the segment detection-free. */
            double PT[3], QT[3];
            for (int k = 0; k < 3; k++) {
                PT[k] = Pf[k] - (P[k] * (1 - a) + Pf[k] * a);
                QT[k] = Qf[k] - (Q[k] * (1 - a) + Qf[k] * a);
            }
            ft = dot3(PT, t) - dot3(QT, t);
            fs = dot3(PT, s) - dot3(QT, s);
        } else if (dfree < 0.0) {
            from_detection = true;
        }
    } else {
        from_detection = true;
    }
    if (from_detection) {
        ft = dot3(PP, t) - dot3(QQ, t);
        fs = dot3(PP, s) - dot3(QQ, s);
    }
    out[0] = dfree;
    out[1] = ft;
    out[2] = fs;
}

void contact_friction_block(const double *W, size_t dim, size_t line, double w6[6])
{
    const double *r0 = W + line * dim, *r1 = r0 + dim, *r2 = r1 + dim;
    w6[0] = r0[line];
    w6[1] = r0[line + 1];
    w6[2] = r0[line + 2];
    w6[3] = r1[line + 1];
    w6[4] = r1[line + 2];
    w6[5] = r2[line + 2];
}

void contact_friction_resolution(double mu, const double w6[6], size_t line, const double *d,
                                 double *lambda)
{
    double *f = lambda + line;
    double fn0 = f[0];
    f[0] -= d[line] / w6[0];
    if (!(f[0] >= 0.0)) {
        f[0] = f[1] = f[2] = 0.0;
        return;
    }
    double dt = d[line + 1] + w6[1] * (f[0] - fn0);
    double ds = d[line + 2] + w6[2] * (f[0] - fn0);
    double wt = 2.0 / (w6[3] + w6[5]);
    f[1] -= dt * wt;
    f[2] -= ds * wt;
    double ft = sqrt(f[1] * f[1] + f[2] * f[2]);
    double cone = mu * f[0];
    if (ft > cone) {
        double k = cone / ft;
        f[1] *= k;
        f[2] *= k;
    }
}

void contact_unilateral_resolution(const double *W, size_t dim, size_t line, const double *d,
                                   double *lambda)
{
    lambda[line] -= d[line] / W[line * dim + line];
    if (!(lambda[line] >= 0.0))
        lambda[line] = 0.0;
}

void contact_auglag_friction_resolution(double mu, double eps, size_t line, const double *d,
                                        double *lambda)
{
    lambda[line] -= d[line] * eps;
    if (lambda[line] < 0) {
        lambda[line] = lambda[line + 1] = lambda[line + 2] = 0;
        return;
    }
    double t0 = lambda[line + 1] - d[line + 1] * eps, t1 = lambda[line + 2] - d[line + 2] * eps;
    if (sqrt(t0 * t0 + t1 * t1) - mu * fabs(lambda[line]) < 0) {
        lambda[line + 1] = t0;
        lambda[line + 2] = t1;
        return;
    }
    double ns = sqrt(d[line + 1] * d[line + 1] + d[line + 2] * d[line + 2]);
    lambda[line + 1] -= mu * d[line] * eps * d[line + 1] / ns;
    lambda[line + 2] -= mu * d[line] * eps * d[line + 2] / ns;
}
