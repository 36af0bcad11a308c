// The dataflow region of tjit's C simulation: stage threads, stream waits and deadlock
// detection (see hls_stream.h and tjit_dataflow.h). Not used in synthesis.
#ifndef TJIT_SIM_REGION_H
#define TJIT_SIM_REGION_H
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tj_sim {

class Region;
class StreamBase;

struct Stop {};   // thrown in a waiting stage when its region stops

inline thread_local Region *current_region = nullptr;
inline thread_local const char *current_stage = "(top)";
inline thread_local std::string last_error;

//: Seconds without any stream moving after which a region gives up (a backstop: a
//: deadlock is normally found at once, when the last live stage starts waiting).
inline double watchdog_seconds = 30.0;

class Region {
 public:
  explicit Region(const char *name) : name_(name), outer_(current_region) {
    current_region = this;
  }
  ~Region() {
    join();
    current_region = outer_;
  }

  // (not a template: std::thread's constructor is instantiated once, in the
  // precompiled header, rather than once per stage of every design: ~15% of the
  // compile time of a 13-stage design)
  void spawn(const char *stage, std::function<void()> f) {
    std::lock_guard<std::mutex> lk(m_);
    alive_++;
    threads_.emplace_back([this, stage, f = std::move(f)]() {
      current_region = this;
      current_stage = stage;
      try {
        f();
      } catch (Stop &) {
      } catch (std::exception &e) {
        fail(std::string("stage ") + stage + ": " + e.what());
      }
      std::lock_guard<std::mutex> g(m_);
      alive_--;
      cv_.notify_all();
    });
  }

  // Wait for every stage; true when the region ran to the end without an error. Until
  // join, stages may still be spawned: no deadlock is declared before (a stage that
  // started first may wait for one not spawned yet). Only the first join checks the
  // streams: the destructor's join runs after the top function's streams, declared
  // after the region, are gone (they detach themselves, see ~StreamBase).
  bool join() {
    if (joined_) return error_.empty();
    joined_ = true;
    {
      std::lock_guard<std::mutex> lk(m_);
      sealed_ = true;
      cv_.notify_all();
    }
    for (auto &t : threads_) t.join();
    threads_.clear();
    if (error_.empty()) check_drained();
    if (!error_.empty()) last_error = error_;
    return error_.empty();
  }

  std::mutex &mutex() { return m_; }
  void attach(StreamBase *s) {
    std::lock_guard<std::mutex> lk(m_);
    streams_.push_back(s);
  }
  void detach(StreamBase *s) {
    std::lock_guard<std::mutex> lk(m_);
    streams_.erase(std::remove(streams_.begin(), streams_.end(), s), streams_.end());
  }
  void moved() {   // (lock held; waiters register under it: no wakeup is lost)
    progress_++;
    if (!waiting_.empty()) cv_.notify_all();
  }
  // Wait (lock held) until ok(); a deadlock or a stopped region throws Stop.
  void wait(std::unique_lock<std::mutex> &lk, const std::function<bool()> &ok,
            const std::string &what);
  void fail(const std::string &msg) {
    std::lock_guard<std::mutex> lk(m_);
    fail_locked(msg);
  }

 private:
  struct Waiter {
    std::string what;
    std::function<bool()> ok;
  };
  void fail_locked(const std::string &msg) {
    if (error_.empty()) error_ = msg;
    stop_ = true;
    cv_.notify_all();
  }
  void check_drained();

  const char *name_;
  Region *outer_;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::thread> threads_;
  std::vector<StreamBase *> streams_;
  std::map<std::thread::id, Waiter> waiting_;
  int alive_ = 0;
  unsigned long progress_ = 0;
  bool stop_ = false;
  bool sealed_ = false;
  bool joined_ = false;
  std::string error_;
};

class StreamBase {
 public:
  StreamBase(const char *name, int depth)
      : name_(name), depth_(depth), region_(current_region) {
    if (region_) region_->attach(this);
  }
  // A stream leaves its region's list when it dies: a region never looks at a dead
  // stream (a virtual call on one is undefined behaviour: "pure virtual method called").
  virtual ~StreamBase() {
    if (region_) region_->detach(this);
  }
  virtual size_t size() const = 0;
  const char *name() const { return name_; }
  int depth() const { return depth_; }

 protected:
  std::unique_lock<std::mutex> lock() {
    return std::unique_lock<std::mutex>(region_ ? region_->mutex() : own_);
  }
  template <class P>
  void wait_for_room(std::unique_lock<std::mutex> &lk, P ok) {
    if (ok()) return;
    if (!region_) return;   // outside a region a stream grows (nothing runs at once)
    region_->wait(lk, ok, describe("write to full"));
  }
  template <class P>
  void wait_for_data(std::unique_lock<std::mutex> &lk, P ok) {
    if (ok()) return;
    if (!region_)
      throw std::runtime_error(std::string("read from empty stream ") + name_ +
                               " outside a dataflow region");
    region_->wait(lk, ok, describe("read from empty"));
  }
  void moved(std::unique_lock<std::mutex> &) {
    if (region_) region_->moved();
  }

 private:
  std::string describe(const char *op) const {
    return std::string("stage ") + current_stage + " waits to " + op + " stream " +
           name_ + " (depth " + std::to_string(depth_) + ")";
  }
  const char *name_;
  int depth_;
  Region *region_;
  std::mutex own_;
};

inline void Region::wait(std::unique_lock<std::mutex> &lk, const std::function<bool()> &ok,
                         const std::string &what) {
  auto me = std::this_thread::get_id();
  waiting_[me] = Waiter{what, ok};
  auto last = progress_;
  auto since = std::chrono::steady_clock::now();
  while (!ok()) {
    if (stop_) {
      waiting_.erase(me);
      throw Stop();
    }
    // deadlocked: every live stage waits and none of their waits can end
    bool stuck = sealed_ && static_cast<int>(waiting_.size()) >= alive_;
    for (auto &w : waiting_) stuck = stuck && !w.second.ok();
    auto now = std::chrono::steady_clock::now();
    if (progress_ != last) {
      last = progress_;
      since = now;
    }
    bool hung = std::chrono::duration<double>(now - since).count() > watchdog_seconds;
    if (stuck || hung) {
      std::string msg = std::string("dataflow region ") + name_ +
                        (stuck ? " deadlocked: " : " made no progress for the watchdog: ");
      bool first = true;
      for (auto &w : waiting_) {
        msg += (first ? "" : "; ") + w.second.what;
        first = false;
      }
      msg += " (a stream is too shallow for the data its consumer must hold back, or a "
             "stage reads more than its producer writes)";
      waiting_.erase(me);
      fail_locked(msg);
      throw Stop();
    }
    cv_.wait_for(lk, std::chrono::milliseconds(50));
  }
  waiting_.erase(me);
}

inline void Region::check_drained() {
  for (auto *s : streams_)
    if (s->size() != 0) {
      error_ = std::string("dataflow region ") + name_ + ": stream " + s->name() +
               " still holds " + std::to_string(s->size()) +
               " elements at the end (its consumer read fewer than its producer wrote)";
      return;
    }
}

}  // namespace tj_sim

#endif
