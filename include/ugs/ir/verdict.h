#pragma once
// Why a graph step is refused. Validators return a Verdict (cheap, no strings on the search's hot
// path); a front end turns it into a message with `describe`, and the generator counts it by `cause`.
#include <cstdint>
#include <string_view>

namespace ugs {

// UGS_VERDICT(Enum, cause, message)
#define UGS_VERDICTS(X)                                                                           \
  X(Ok, None, "ok")                                                                               \
  X(BadOperand, Shape, "an operand names a tensor that does not exist (yet)")                     \
  X(Arity, Shape, "wrong number of operands")                                                    \
  X(RankMismatch, Shape, "operands have different ranks")                                        \
  X(InnerDimMismatch, Shape, "matmul inner dimensions differ")                                   \
  X(BatchMismatch, Shape, "matmul batch dimensions differ")                                      \
  X(RankTooLow, Shape, "matmul needs operands of rank 2 or more")                                \
  X(BroadcastMismatch, Shape, "shapes do not broadcast (each dim must be equal or 1)")           \
  X(BadDim, Shape, "the `dim` attribute is out of range")                                        \
  X(BadTo, Shape, "the `to` attribute must be positive and divide the folded dimension")         \
  X(BlockBatchedMatmul, Shape, "a block matmul needs batch dims of 1 (batching goes to the grid)") \
  X(WrongLevel, Shape, "this op kind is not allowed at this level")                              \
  X(MixedStage, Shape, "op mixes tensors from before and after the loop accumulators")           \
  X(AccumOfPost, Shape, "an accumulator's operand must come from inside the loop")               \
  X(SaverOfPre, Shape, "a saved tensor must pass a loop accumulator first")                      \
  X(BadGrid, Shape, "grid dims must be between 1 and 65535")                                     \
  X(BadLoop, Shape, "loop range must be at least 1")                                             \
  X(BadImap, Shape, "imap must map each grid axis to a distinct data dim dividing evenly, or -1") \
  X(BadFmap, Shape, "fmap must name a data dim whose tile divides evenly by the loop range, or -1") \
  X(BadOmap, Shape, "omap must map every grid axis of size > 1 to a distinct data dim, others -1") \
  X(NoOutputs, Shape, "a block graph needs at least one output")                                 \
  X(Unused, Shape, "a tensor is computed but never used")                                        \
  X(TooMany, Shape, "graph capacity exceeded")                                                   \
  X(TooLarge, Shape, "tensor too large")                                                         \
  X(SharedMemory, Memory, "block tiles exceed the shared-memory budget")                         \
  X(Order, Order, "op does not rank above the previous op (canonical order)")

enum class Verdict : uint8_t {
#define UGS_X(e, cause, msg) e,
  UGS_VERDICTS(UGS_X)
#undef UGS_X
};

// The rejection classes counted by the search (docs/design.md §9 stats.pruned).
enum class Cause : uint8_t { None, Shape, Memory, Order };

std::string_view describe(Verdict v);
Cause cause(Verdict v);

}  // namespace ugs
