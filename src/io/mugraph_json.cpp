// μGraph files: writing the canonical JSON and reading it back through the validating builders.
#include "ugs/io/mugraph_json.h"

#include <type_traits>

#include "ugs/util/error.h"
#include "ugs/util/files.h"

namespace ugs {
namespace {

using nlohmann::json;

json op_json(const Op& op) {
  json node = {{"op", name_of(op.kind)}, {"in", json::array()}};
  for (int i = 0; i < arity(op.kind); ++i) node["in"].push_back(op.in[i]);
  if (has_dim(op.kind)) node["dim"] = op.dim;
  if (has_to(op.kind)) node["to"] = op.to;
  return node;
}

json block_json(const BlockGraph& bg) {
  json node = {{"op", "block"}, {"grid", bg.grid}, {"loop", bg.loop}};
  for (const BlockInput& in : bg.inputs)
    node["in"].push_back({{"t", in.tensor}, {"imap", in.imap}, {"fmap", in.fmap}});
  node["ops"] = json::array();
  for (const Op& op : bg.ops) node["ops"].push_back(op_json(op));
  for (const BlockOutput& o : bg.outputs) node["out"].push_back({{"t", o.tile}, {"omap", o.omap}});
  return node;
}

class Reader {
 public:
  Reader(const std::string& origin, const GraphRules& rules) : origin_(origin), rules_(rules) {}

  KernelGraph read(const json& doc) {
    if (!doc.is_object()) fail("a μGraph must be a JSON object with inputs, kernels, outputs");
    for (const json& s : array(doc, "inputs", "μGraph")) {
      const Verdict v = graph_.add_input(shape(s));
      if (v != Verdict::Ok) fail("input: " + std::string(describe(v)));
    }
    const json& kernels = array(doc, "kernels", "μGraph");
    for (size_t k = 0; k < kernels.size(); ++k) {
      where_ = "kernel op " + std::to_string(k);
      const Verdict v = kernel(kernels[k]);
      if (v != Verdict::Ok) fail(describe(v));
    }
    where_.clear();
    FixedVec<int32_t, kMaxOutputs> outs;
    for (const json& o : array(doc, "outputs", "μGraph")) {
      if (outs.full()) fail("too many outputs");
      outs.push_back(integer(o, "outputs"));
    }
    if (Verdict v = graph_.set_outputs(outs.span()); v != Verdict::Ok) fail("outputs: " + std::string(describe(v)));
    if (Verdict v = graph_.check_complete(); v != Verdict::Ok) fail(describe(v));
    return graph_;
  }

 private:
  [[noreturn]] void fail(std::string_view msg) const {
    throw InputError(origin_ + ": " + (where_.empty() ? "" : where_ + ": ") + std::string(msg));
  }

  const json& array(const json& node, const char* key, const char* what) const {
    if (!node.is_object() || !node.contains(key) || !node[key].is_array())
      fail(std::string(what) + " needs an array '" + key + "'");
    return node[key];
  }

  int integer(const json& node, const char* what) const {
    if (!node.is_number_integer() || node.get<int64_t>() < -1 || node.get<int64_t>() > (1 << 24))
      fail(std::string(what) + " must hold integers");
    return static_cast<int>(node.get<int64_t>());
  }

  // A data-dim index or -1 (φ).
  int8_t dim(const json& node, const char* what) const {
    const int v = integer(node, what);
    if (v < -1 || v >= kMaxRank) fail(std::string(what) + " must hold dims between -1 and 3");
    return static_cast<int8_t>(v);
  }

  Shape shape(const json& node) const {
    if (!node.is_array() || node.empty() || node.size() > kMaxRank)
      fail("input shapes must be arrays of 1 to 4 integers");
    Shape s;
    for (const json& d : node) s.d[s.rank++] = integer(d, "shapes");
    return s;
  }

  template <size_t N, class T>
  std::array<T, N> fixed(const json& node, const char* key) const {
    if (!node.contains(key) || !node[key].is_array() || node[key].size() != N)
      fail(std::string("'") + key + "' must be an array of " + std::to_string(N) + " integers");
    std::array<T, N> values{};
    for (size_t i = 0; i < N; ++i)
      values[i] = static_cast<T>(std::is_same_v<T, int8_t> ? dim(node[key][i], key) : integer(node[key][i], key));
    return values;
  }

  Op op(const json& node) const {
    if (!node.is_object() || !node.contains("op") || !node["op"].is_string()) fail("each op needs a string 'op'");
    const auto kind = op_kind_from_name(node["op"].get<std::string>());
    if (!kind || *kind == OpKind::Block) fail("unknown op '" + node["op"].get<std::string>() + "'");
    Op result;
    result.kind = *kind;
    const json& in = array(node, "in", "each op");
    if (static_cast<int>(in.size()) != arity(*kind))
      fail(std::string(name_of(*kind)) + " takes " + std::to_string(arity(*kind)) + " operands");
    for (int i = 0; i < arity(*kind); ++i) result.in[i] = integer(in[i], "'in'");
    if (has_dim(*kind)) result.dim = node.contains("dim") ? dim(node["dim"], "'dim'") : int8_t{-1};
    if (has_to(*kind)) result.to = node.contains("to") ? integer(node["to"], "'to'") : 0;
    return result;
  }

  Verdict kernel(const json& node) {
    if (!node.is_object() || !node.contains("op") || !node["op"].is_string())
      fail("each kernel op needs a string 'op'");
    if (node["op"] != "block") return graph_.add_op(op(node));
    BlockGraph bg;
    bg.grid = fixed<3, int32_t>(node, "grid");
    if (!node.contains("loop")) fail("a block graph needs 'loop'");
    bg.loop = integer(node["loop"], "'loop'");
    for (const json& in : array(node, "in", "a block graph")) {
      if (bg.inputs.full()) fail("too many block inputs");
      const int8_t fmap = in.contains("fmap") ? dim(in["fmap"], "'fmap'") : int8_t{kNoDim};
      if (!in.contains("t")) fail("each block input needs 't'");
      bg.inputs.push_back({integer(in["t"], "'t'"), fixed<3, int8_t>(in, "imap"), fmap});
    }
    for (const json& o : array(node, "ops", "a block graph")) {
      if (bg.ops.full()) fail("too many block ops");
      bg.ops.push_back(op(o));
    }
    for (const json& o : array(node, "out", "a block graph")) {
      if (bg.outputs.full()) fail("too many block outputs");
      if (!o.is_object() || !o.contains("t")) fail("each block output needs 't'");
      bg.outputs.push_back({integer(o["t"], "'t'"), fixed<3, int8_t>(o, "omap")});
    }
    return graph_.add_block(bg, rules_);
  }

  const std::string& origin_;
  const GraphRules& rules_;
  std::string where_;
  KernelGraph graph_;
};

}  // namespace

json to_json(const KernelGraph& graph) {
  json doc = {{"inputs", json::array()}, {"kernels", json::array()}, {"outputs", json::array()}};
  for (int t = 0; t < graph.num_inputs; ++t) {
    json s = json::array();
    for (int i = 0; i < graph.shape(t).rank; ++i) s.push_back(graph.shape(t).d[i]);
    doc["inputs"].push_back(s);
  }
  for (const KernelOp& k : graph.ops)
    doc["kernels"].push_back(k.op.kind == OpKind::Block ? block_json(graph.blocks[k.block]) : op_json(k.op));
  for (int32_t t : graph.outputs) doc["outputs"].push_back(t);
  return doc;
}

KernelGraph mugraph_from_json(const json& doc, const std::string& origin, const GraphRules& rules) {
  return Reader(origin, rules).read(doc);
}

KernelGraph parse_mugraph(std::string_view text, const std::string& origin, const GraphRules& rules) {
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) throw InputError(origin + ": not valid JSON; check brackets, commas and quotes");
  if (doc.is_object() && doc.contains("mugraphs")) {
    const json& m = doc["mugraphs"];
    if (!m.is_array() || m.empty()) throw InputError(origin + ": results file holds no μGraphs");
    if (!m[0].is_object() || !m[0].contains("graph")) throw InputError(origin + ": first μGraph has no 'graph'");
    return mugraph_from_json(m[0]["graph"], origin, rules);
  }
  return mugraph_from_json(doc, origin, rules);
}

KernelGraph load_mugraph(const std::string& path, const GraphRules& rules) {
  return parse_mugraph(read_file(path), path, rules);
}

}  // namespace ugs
