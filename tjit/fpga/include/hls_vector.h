// tjit's C-simulation stand-in for Vitis HLS's hls_vector.h: hls::vector<T, N>, N lanes
// of T packed in one word (the packets of a wide stream: 16 float32 or 8 float64 lanes
// make a 512-bit beat). Only what the generated designs use: lane access by [].
#ifndef TJIT_SIM_HLS_VECTOR_H
#define TJIT_SIM_HLS_VECTOR_H
#include <cstddef>

namespace hls {
template <typename T, size_t N>
struct vector {
  T lanes[N];
  T &operator[](size_t i) { return lanes[i]; }
  const T &operator[](size_t i) const { return lanes[i]; }
};
}  // namespace hls
#endif
