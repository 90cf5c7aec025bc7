// The lazyfree thread: a queue of free jobs served by one thread (see lazyfree.h).
#include "base/lazyfree.h"

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <mutex>
#include <thread>

#include "base/cpu_affinity.h"
#include "base/memory.h"

namespace keel {
namespace {

class Worker {
 public:
  ~Worker() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    work_.notify_one();
    if (thread_.joinable()) thread_.join();  // runs what is still queued first
  }

  void submit(void (*fn)(void*), void* arg, uint64_t objects) {
    pending_ += objects;
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(Job{fn, arg, objects});
      if (!thread_.joinable()) start();
    }
    work_.notify_one();
  }

  void drain() {
    std::unique_lock<std::mutex> lock(mu_);
    idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
  }

  LazyfreeStats stats() const { return LazyfreeStats{pending_.load(), freed_.load()}; }
  void reset_stats() { freed_ = 0; }

 private:
  struct Job {
    void (*fn)(void*);
    void* arg;
    uint64_t objects;
  };

  // Asynchronous signals stay with the main thread (libuv's handlers, the BGSAVE child's exit);
  // faults are still reported where they happen.
  void start() {
    sigset_t all, old;
    sigfillset(&all);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) sigdelset(&all, sig);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    thread_ = std::thread([this] { run(); });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }

  void run() {
    apply_cpulist(cpu_lists().bio, "bio_cpulist");
    // Named once bound: whoever finds "lazyfree" in /proc sees its final CPU set.
    pthread_setname_np(pthread_self(), "lazyfree");
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      work_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      const Job job = queue_.front();
      queue_.pop_front();
      busy_ = true;
      lock.unlock();
      // What the job gives back counts in the maxmemory figure at once (base/memory.h).
      const int64_t before = thread_net_allocated();
      job.fn(job.arg);
      memory_add_foreign(thread_net_allocated() - before);
      pending_ -= job.objects;
      freed_ += job.objects;
      lock.lock();
      busy_ = false;
      idle_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable work_, idle_;
  std::deque<Job> queue_;
  bool busy_ = false;
  bool stop_ = false;
  std::thread thread_;
  std::atomic<uint64_t> pending_{0}, freed_{0};
};

Worker& worker() {
  static Worker w;
  return w;
}

}  // namespace

void lazyfree_submit(void (*fn)(void*), void* arg, uint64_t objects) { worker().submit(fn, arg, objects); }
LazyfreeStats lazyfree_stats() { return worker().stats(); }
void lazyfree_reset_stats() { worker().reset_stats(); }
void lazyfree_drain() { worker().drain(); }

}  // namespace keel
