// Transcendental functions computed identically on every platform.
//
// glibc's and Emscripten's log/exp/pow disagree in the last bit on a small share
// of inputs, and a one-ulp difference in an inter-arrival time or a Zipf weight
// changes a trace. These versions use only + - * / and integer bit handling, all
// exactly rounded under IEEE 754, so they return the same double everywhere
// (core is compiled with -ffp-contract=off so no FMA fusing changes a rounding).
// Accuracy: within a few ulp of the true value, which is all a workload needs.
#pragma once

namespace prefixroute::dmath {

/// Natural logarithm for finite x > 0. Returns -inf for 0 and NaN for x < 0.
double log(double x);

/// e^x for finite x; 0 below about -745, +inf above about 709.8.
double exp(double x);

/// base^exponent for base > 0: exp(exponent * log(base)).
double pow(double base, double exponent);

}  // namespace prefixroute::dmath
