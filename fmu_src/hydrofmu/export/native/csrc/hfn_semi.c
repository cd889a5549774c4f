/* hydrofmu native runtime, the semi-implicit schemes (see hfn_semi.h). */
#include "hfn_semi.h"

#include <math.h>
#include <string.h>

#include "hfn_lines.h"

void hfn_si_step(instance *c, double t, double h, double t_grid, hfn_deriv_fn f) {
    const hfn_model *md = &c->md;
    hfn_lines_model *lm = md->lines;
    uint32_t i, j, n = md->n, nsub = lm->si_n;
    int aca = lm->si_family == 3u, mid = lm->si_family == 2u, finite = 1;
    double *z = lm->z, *g = lm->g, *yt = lm->ytmp, *xnew = c->xnew;
    const double *y = c->d.x, *d0 = lm->d0;
    double stage = mid ? 0.5 : 1.0, ts = t + stage * h, sh = stage * h, hh = 0.5 * h;
    const double *spr = mid ? c->pm_re : c->pe_re, *spi = mid ? c->pm_im : c->pe_im;
    if (!aca && *c->d.si_valid == 1.0 && fabs(*c->d.si_t - t) <= 1e-9 * fmax(h, fabs(t)))
        d0 = c->d.si_d; /* the carried derivative */
    else
        f(c, t, t - t_grid, y, c->d.p_re, c->d.p_im, lm->d0);
    memcpy(z, d0, n * sizeof(double));
    for (i = 0; i < nsub; i++) {
        if (aca)
            for (j = 0; j < n; j++) yt[j] = y[j] + hh * (d0[j] + z[j]);
        else
            for (j = 0; j < n; j++) yt[j] = y[j] + sh * z[j];
        f(c, ts, ts - t_grid, yt, spr, spi, g);
        if (i + 1 < nsub) {
            double r = lm->relax[i];
            for (j = 0; j < n; j++) z[j] = (1.0 - r) * g[j] + r * z[j];
        }
    }
    if (aca)
        for (j = 0; j < n; j++) xnew[j] = y[j] + hh * (d0[j] + g[j]);
    else
        for (j = 0; j < n; j++) xnew[j] = y[j] + h * g[j];
    for (j = 0; j < n && finite; j++) finite = isfinite(xnew[j]);
    if (!aca && finite) {
        memcpy(c->d.si_d, g, n * sizeof(double));
        *c->d.si_t = t + h;
        *c->d.si_valid = 1.0;
    }
}
