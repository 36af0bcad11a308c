// tjit's C-simulation stand-in for Vitis HLS's hls_stream.h: hls::stream<T, DEPTH> as a
// bounded FIFO of DEPTH elements (Vitis' default depth is 2), safe between threads.
//
// Inside a dataflow region (tjit_dataflow.h) every stage runs in its own thread, as
// the stages of a DATAFLOW region run at once on the device: a read of an empty
// stream or a write to a full one waits. When every live stage of the region waits
// and none can go on, the region is deadlocked (as the hardware would be): the
// region stops all stages and reports which stage waits on which stream. Outside a
// region, a read of an empty stream is an error (there is no one to fill it).
#ifndef TJIT_SIM_HLS_STREAM_H
#define TJIT_SIM_HLS_STREAM_H
#include <cstddef>
#include <deque>
#include <stdexcept>
#include <string>
#include "tjit_sim_region.h"

namespace hls {
// stream<T> (DEPTH 0: Vitis' default of 2) is the type stages take by reference;
// stream<T, DEPTH> derives from it, as in Vitis HLS, so one binds to the other.
template <typename T, int DEPTH = 0>
class stream;

template <typename T>
class stream<T, 0> : public tj_sim::StreamBase {
 public:
  stream() : stream("stream") {}
  explicit stream(const char *name, int depth = 2) : tj_sim::StreamBase(name, depth) {}
  stream(const stream &) = delete;
  stream &operator=(const stream &) = delete;

  void write(const T &v) {
    auto lk = lock();
    wait_for_room(lk, [this] { return q_.size() < static_cast<size_t>(depth()); });
    q_.push_back(v);
    moved(lk);
  }
  T read() {
    auto lk = lock();
    wait_for_data(lk, [this] { return !q_.empty(); });
    T v = q_.front();
    q_.pop_front();
    moved(lk);
    return v;
  }
  void read(T &v) { v = read(); }
  void operator<<(const T &v) { write(v); }
  void operator>>(T &v) { v = read(); }
  bool empty() {
    auto lk = lock();
    return q_.empty();
  }
  bool full() {
    auto lk = lock();
    return q_.size() >= static_cast<size_t>(depth());
  }
  size_t size() const override { return q_.size(); }

 private:
  std::deque<T> q_;
};

template <typename T, int DEPTH>
class stream : public stream<T, 0> {
 public:
  stream() : stream<T, 0>("stream", DEPTH) {}
  explicit stream(const char *name) : stream<T, 0>(name, DEPTH) {}
};
}  // namespace hls
#endif
