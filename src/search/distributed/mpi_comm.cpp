// Comm over MPI (include/ugs/search/distributed/comm.h): nonblocking calls completed by polling with sleeps, byte
// messages, MPI_COMM_WORLD duplicated so that the search's messages meet no one else's.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <thread>

#include "ugs/search/distributed/comm.h"

namespace ugs {
namespace {

using namespace std::chrono_literals;

// A short spin for the quick answers, then sleeps that grow to a millisecond: an MPI wait busy-polls
// a core, which the rank's threads or the other ranks on the machine need.
class Backoff {
 public:
  void pause() {
    if (++polls_ < 64) return;
    std::this_thread::sleep_for(sleep_);
    sleep_ = std::min<std::chrono::microseconds>(sleep_ * 2, 1000us);
  }

 private:
  int polls_ = 0;
  std::chrono::microseconds sleep_{10};
};

void wait(MPI_Request& req) {
  Backoff b;
  for (int done = 0; MPI_Test(&req, &done, MPI_STATUS_IGNORE), !done;) b.pause();
}

int count_of(size_t n) {
  if (n > static_cast<size_t>(INT_MAX))
    throw std::runtime_error("ugsearch: a message between ranks passes 2 GiB; lower bfs_batch in the config");
  return static_cast<int>(n);
}

// Displacements of counts, and their total.
size_t offsets(const std::vector<int>& counts, std::vector<int>& displs) {
  displs.assign(counts.size(), 0);
  size_t total = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    displs[r] = count_of(total);
    total += static_cast<size_t>(counts[r]);
  }
  count_of(total);
  return total;
}

std::vector<std::string> split(const std::string& all, const std::vector<int>& counts, const std::vector<int>& displs) {
  std::vector<std::string> parts(counts.size());
  for (size_t r = 0; r < counts.size(); ++r) parts[r] = all.substr(displs[r], counts[r]);
  return parts;
}

class MpiComm final : public Comm {
 public:
  MpiComm() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiComm() override {
    MPI_Comm_free(&comm_);
    MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void sum(std::span<uint64_t> v) override {
    MPI_Request req;
    MPI_Iallreduce(MPI_IN_PLACE, v.data(), count_of(v.size()), MPI_UINT64_T, MPI_SUM, comm_, &req);
    wait(req);
    sent_ += v.size_bytes();
    received_ += v.size_bytes();
  }

  std::vector<std::string> all_gather(const std::string& mine) override {
    const int n = count_of(mine.size());
    std::vector<int> counts(size_), displs;
    MPI_Request req;
    MPI_Iallgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_, &req);
    wait(req);
    std::string all(offsets(counts, displs), '\0');
    MPI_Iallgatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, comm_, &req);
    wait(req);
    sent_ += uint64_t(n) * (size_ - 1);
    received_ += all.size() - n;
    return split(all, counts, displs);
  }

  std::vector<std::string> all_to_all(const std::vector<std::string>& to) override {
    std::vector<int> send_counts(size_), recv_counts(size_), send_displs, recv_displs;
    for (int r = 0; r < size_; ++r) send_counts[r] = count_of(to[r].size());
    std::string out;
    out.reserve(offsets(send_counts, send_displs));
    for (const std::string& s : to) out += s;
    MPI_Request req;
    MPI_Ialltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm_, &req);
    wait(req);
    std::string in(offsets(recv_counts, recv_displs), '\0');
    MPI_Ialltoallv(out.data(), send_counts.data(), send_displs.data(), MPI_BYTE, in.data(), recv_counts.data(),
                   recv_displs.data(), MPI_BYTE, comm_, &req);
    wait(req);
    sent_ += out.size() - to[rank_].size();
    received_ += in.size() - static_cast<size_t>(recv_counts[rank_]);
    return split(in, recv_counts, recv_displs);
  }

  std::vector<std::string> gather(const std::string& mine) override {
    const int n = count_of(mine.size());
    std::vector<int> counts(size_), displs;
    MPI_Request req;
    MPI_Igather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_, &req);
    wait(req);
    std::string all(rank_ == 0 ? offsets(counts, displs) : 0, '\0');
    MPI_Igatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, 0, comm_, &req);
    wait(req);
    if (rank_ != 0) {
      sent_ += n;
      return {};
    }
    received_ += all.size() - n;
    return split(all, counts, displs);
  }

  void send(int to, int tag, const std::string& msg) override {
    MPI_Request req;
    MPI_Isend(msg.data(), count_of(msg.size()), MPI_BYTE, to, tag, comm_, &req);
    wait(req);
    sent_ += msg.size();
  }

  std::optional<std::pair<int, std::string>> try_receive(int tag) override {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, tag, comm_, &flag, &st);
    if (!flag) return std::nullopt;
    return std::pair{st.MPI_SOURCE, receive_probed(st, tag)};
  }

  std::string receive(int from, int tag) override {
    Backoff b;
    int flag = 0;
    MPI_Status st;
    while (MPI_Iprobe(from, tag, comm_, &flag, &st), !flag) b.pause();
    return receive_probed(st, tag);
  }

  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

 private:
  std::string receive_probed(const MPI_Status& st, int tag) {
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    std::string msg(n, '\0');
    MPI_Recv(msg.data(), n, MPI_BYTE, st.MPI_SOURCE, tag, comm_, MPI_STATUS_IGNORE);
    received_ += msg.size();
    return msg;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
};

}  // namespace

bool mpi_built() { return true; }

std::unique_ptr<Comm> start_mpi() { return std::make_unique<MpiComm>(); }

}  // namespace ugs
