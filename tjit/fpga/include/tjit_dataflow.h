// The dataflow region of a tjit design. In synthesis (__SYNTHESIS__), and in Vitis'
// own C simulation (its hls_stream.h), the stages are plain calls in order under
// #pragma HLS DATAFLOW; with tjit's simulation headers each stage runs in its own
// thread, as on the device, over bounded streams (hls_stream.h, tjit_sim_region.h).
// TJ_BUFFER declares an intermediate on chip (an array: a ping-pong buffer in Vitis).
#ifndef TJIT_DATAFLOW_H
#define TJIT_DATAFLOW_H
#if !defined(__SYNTHESIS__) && defined(TJIT_SIM_HLS_STREAM_H)
#include "tjit_sim_region.h"
#define TJ_REGION(name) tj_sim::Region tj_region_(name)
#define TJ_STAGE(name, ...) tj_region_.spawn(name, [&]() { __VA_ARGS__; })
#define TJ_END() tj_region_.join()
// a condition the design needs of its sizes (a symbolic row that fits its row
// buffer): unmet, the call does nothing and reports msg as the region's error
#define TJ_REQUIRE(cond, msg) \
  do { if (!(cond)) { tj_sim::last_error = msg; return; } } while (0)
// an on-chip buffer on the heap (a thread's stack is small)
#include <vector>
#define TJ_BUFFER(T, name, n) \
  std::vector<T> name##_store(n); \
  T *name = name##_store.data()
#else
#define TJ_BUFFER(T, name, n) T name[n]
#define TJ_REGION(name)
#define TJ_STAGE(name, ...) __VA_ARGS__
#define TJ_END()
#define TJ_REQUIRE(cond, msg) ((void)0)  /* (the host program checks it) */
#endif
#endif
