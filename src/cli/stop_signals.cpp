#include "stop_signals.h"

#include <signal.h>

namespace ugs::cli {
namespace {

static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler may only store to a lock-free atomic");
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<std::atomic<bool>*>::is_always_lock_free);

std::atomic<std::atomic<bool>*> g_stop{nullptr};
std::atomic<int> g_caught{0};
constexpr int kSignals[] = {SIGINT, SIGTERM};
struct sigaction g_previous[2];

extern "C" void on_stop_signal(int sig) {
  g_caught.store(sig, std::memory_order_relaxed);
  if (std::atomic<bool>* s = g_stop.load()) s->store(true, std::memory_order_relaxed);
}

}  // namespace

StopSignals::StopSignals(std::atomic<bool>& stop) {
  g_stop.store(&stop);
  g_caught.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND | SA_RESTART;  // the second signal takes the default action: the end
  for (int i = 0; i < 2; ++i) sigaction(kSignals[i], &sa, &g_previous[i]);
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 2; ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
  g_stop.store(nullptr);
}

int StopSignals::caught() { return g_caught.load(); }

const char* signal_name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal"; }

}  // namespace ugs::cli
