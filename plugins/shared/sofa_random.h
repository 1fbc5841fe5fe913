/* sofa_random.h - SOFA's helper::RandomGenerator: the rand48 linear
 * congruential generator (x <- 0x5deece66d x + 0xb mod 2^48) with its
 * default state (0x1234abcd330e), its seeding (initSeed: the low 16 bits
 * 0x330e, then the seed's low 32 bits) and its draws (randomBase: the top
 * 32 bits; random(min, max) for reals: min + (max - min) base / (2^32 - 1)).
 * Engines that draw numbers the way SOFA's do use it, so that a scene
 * gives SOFA's numbers. Header-only. */
#ifndef SETTEE_SHARED_SOFA_RANDOM_H
#define SETTEE_SHARED_SOFA_RANDOM_H

#include <stdint.h>

typedef struct sofa_rng {
    uint64_t x; /* 48-bit state */
} sofa_rng;

/* The state of SOFA's default-constructed generator. */
static inline void sofa_rng_default(sofa_rng *r) { r->x = 0x1234abcd330eULL; }

/* SOFA's initSeed(seed). */
static inline void sofa_rng_seed(sofa_rng *r, long seed)
{
    r->x = ((uint64_t)(uint32_t)seed << 16) | 0x330eULL;
}

/* SOFA's randomBase(): the next 32-bit draw. */
static inline uint32_t sofa_rng_base(sofa_rng *r)
{
    r->x = (0x5deece66dULL * r->x + 0xbULL) & 0xffffffffffffULL;
    return (uint32_t)(r->x >> 16);
}

/* SOFA's random<double>(min, max). */
static inline double sofa_rng_real(sofa_rng *r, double min, double max)
{
    return min + (max - min) * ((double)sofa_rng_base(r) / 4294967295.0);
}

#endif
