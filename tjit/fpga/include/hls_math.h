// tjit's C-simulation stand-in for Vitis HLS's hls_math.h: the hls:: math functions
// the generated kernels call, mapped to the C++ library (<cmath>). Vitis' own
// implementations are within a few ulp of these; synthesis uses Vitis' header.
#ifndef TJIT_SIM_HLS_MATH_H
#define TJIT_SIM_HLS_MATH_H
#include <cmath>
namespace hls {
using std::atan2; using std::cbrt; using std::ceil; using std::cos; using std::erf;
using std::exp; using std::exp2; using std::expm1; using std::fabs; using std::floor;
using std::fmod; using std::log; using std::log1p; using std::pow; using std::rint;
using std::round; using std::sin; using std::sqrt; using std::tan; using std::tanh;
using std::asin; using std::acos; using std::atan; using std::sinh; using std::cosh;
using std::asinh; using std::acosh; using std::atanh; using std::erfc; using std::lgamma;
using std::nextafter; using std::fma;
}  // namespace hls
#endif
