// Transcendental functions computed identically on every platform.
//
// glibc's and Emscripten's log/exp/pow disagree in the last bit on a small share
// of inputs, and a one-ulp difference in an inter-arrival time or a Zipf weight
// changes a trace. These versions use only + - * / and integer bit handling, all
// exactly rounded under IEEE 754, so they return the same double everywhere
// (core is compiled with -ffp-contract=off so no FMA fusing changes a rounding).
// Accuracy (measured in tests/workload/workload_test.cpp): log within 3 ulp, exp within
// 6 ulp; pow inherits the rounding of exponent x log(base), amplified by its
// size: a few ulp when |exponent x log(base)| <= 1, up to ~2e-14 relative over
// the Zipf domain (bases to 1e5, exponents to 10). Plenty for a workload; what
// matters is that every platform gets the same bits.
#pragma once

namespace prefixroute::dmath {

/// Natural logarithm for finite x > 0. Returns -inf for 0 and NaN for x < 0.
double log(double x);

/// e^x for finite x; 0 below about -745, +inf above about 709.8.
double exp(double x);

/// base^exponent for base > 0: exp(exponent * log(base)).
double pow(double base, double exponent);

}  // namespace prefixroute::dmath
