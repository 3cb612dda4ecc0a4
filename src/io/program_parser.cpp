// Program files (docs/design.md §1): every rule broken gets one line naming the file, the op and the reason.
#include <algorithm>
#include <map>
#include <set>

#include "ugs/io/program.h"
#include "ugs/util/error.h"
#include "ugs/util/files.h"

namespace ugs {
namespace {

using nlohmann::json;

std::string known_ops() {
  std::string r;
  for (const OpInfo& i : kOpInfo)
    if (i.where == OpWhere::Both) r += (r.empty() ? "" : ", ") + std::string(i.name);
  return r;
}

class Parser {
 public:
  explicit Parser(const std::string& origin) : origin_(origin) {}

  Program parse(std::string_view text) {
    json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) fail("not valid JSON; check brackets, commas and quotes");
    if (!doc.is_object()) fail("a program must be a JSON object with inputs, ops and outputs");
    for (const auto& [key, _] : doc.items())
      if (key != "name" && key != "inputs" && key != "ops" && key != "outputs" && key != "search" && key != "mirage")
        fail("unknown key '" + key + "' (a program has name, inputs, ops, outputs, search, mirage)");
    prog_.source = doc;
    prog_.name = origin_;
    if (doc.contains("name")) {
      if (!doc["name"].is_string() || doc["name"].get<std::string>().empty()) fail("name must be a non-empty string");
      prog_.name = doc["name"].get<std::string>();
    }
    if (doc.contains("search")) {
      if (!doc["search"].is_object()) fail("'search' must be an object (a search config preset)");
      prog_.search_preset = doc["search"];
    }
    if (doc.contains("mirage")) parse_mirage(doc["mirage"]);
    parse_inputs(array_of(doc, "inputs"));
    parse_ops(array_of(doc, "ops"));
    parse_outputs(array_of(doc, "outputs"));
    check_uses();
    return std::move(prog_);
  }

 private:
  // {"config": "default" | "mlp" | "lora" | "attention", "scale": N (optional, default 1)}.
  void parse_mirage(const json& mirage) {
    const std::string form = "'mirage' must be {\"config\": \"default\"|\"mlp\"|\"lora\"|\"attention\", \"scale\": N}";
    if (!mirage.is_object() || !mirage.contains("config") || !mirage["config"].is_string()) fail(form);
    for (const auto& [key, _] : mirage.items())
      if (key != "config" && key != "scale") fail(form + "; unknown key '" + key + "'");
    const auto config = mirage_config_from_name(mirage["config"].get<std::string>());
    if (!config) fail(form + "; unknown config '" + mirage["config"].get<std::string>() + "'");
    prog_.mirage_config = *config;
    if (mirage.contains("scale")) {
      const json& scale = mirage["scale"];
      if (!scale.is_number_integer() || scale.get<int64_t>() < 1 || scale.get<int64_t>() > 4096) fail(form + "; scale from 1 to 4096");
      prog_.mirage_scale = static_cast<int32_t>(scale.get<int64_t>());
    }
  }

  [[noreturn]] void fail(const std::string& msg) const { throw InputError(origin_ + ": " + msg); }
  [[noreturn]] void fail_op(const std::string& name, const std::string& kind, const std::string& msg) const {
    fail("op '" + name + "'" + (kind.empty() ? "" : " (" + kind + ")") + ": " + msg);
  }

  const json& array_of(const json& doc, const char* key) const {
    if (!doc.contains(key)) fail(std::string("missing '") + key + "'");
    const json& a = doc[key];
    if (!a.is_array()) fail(std::string("'") + key + "' must be an array");
    if (a.empty()) fail(std::string("'") + key + "' is empty");
    return a;
  }

  std::string name_field(const json& node, const std::string& what) const {
    if (!node.is_object()) fail(what + " must be an object");
    if (!node.contains("name") || !node["name"].is_string() || node["name"].get<std::string>().empty())
      fail(what + " needs a non-empty string 'name'");
    std::string name = node["name"].get<std::string>();
    if (index_.count(name)) fail("name '" + name + "' is used twice; names must be unique");
    return name;
  }

  static bool is_int(const json& j) { return j.is_number_integer(); }
  // Huge unsigned values saturate (they are out of every range checked).
  static int64_t as_int(const json& j) {
    return j.is_number_unsigned() ? static_cast<int64_t>(std::min<uint64_t>(j.get<uint64_t>(), uint64_t{1} << 40))
                                  : j.get<int64_t>();
  }

  Shape parse_shape(const json& node, const std::string& who) const {
    if (!node.is_array() || node.empty()) fail(who + ": shape must be an array of 1 to 4 positive integers");
    if (node.size() > kMaxRank) fail(who + ": rank " + std::to_string(node.size()) + " (shapes have rank 1 to 4)");
    Shape shape;
    for (const json& d : node) {
      if (!is_int(d)) fail(who + ": shape must be an array of 1 to 4 positive integers");
      const int64_t v = as_int(d);
      if (v < 1 || v > kMaxDim)
        fail(who + ": dimension " + std::to_string(v) + " must be between 1 and " + std::to_string(kMaxDim));
      shape.d[shape.rank++] = static_cast<int32_t>(v);
    }
    return shape;
  }

  void parse_inputs(const json& inputs) {
    for (const json& in : inputs) {
      const std::string name = name_field(in, "each input");
      for (const auto& [key, _] : in.items())
        if (key != "name" && key != "shape")
          fail("input '" + name + "': unknown key '" + key + "' (inputs have name, shape)");
      if (!in.contains("shape")) fail("input '" + name + "': missing 'shape'");
      const Shape shape = parse_shape(in["shape"], "input '" + name + "'");
      const Verdict verdict = prog_.graph.add_input(shape);
      if (verdict == Verdict::TooMany) fail("too many inputs (at most " + std::to_string(kMaxKernelInputs) + ")");
      if (verdict != Verdict::Ok)
        fail("input '" + name + "': " + std::string(describe(verdict)) + " " + to_string(shape));
      add_name(name);
      exps_.push_back(0);
    }
  }

  void parse_ops(const json& ops) {
    for (const json& j : ops) parse_op(j);
  }

  void parse_op(const json& node) {
    const std::string name = name_field(node, "each op");
    if (!node.contains("op") || !node["op"].is_string()) fail_op(name, "", "needs a string 'op'");
    const std::string kind_name = node["op"].get<std::string>();
    const auto kind = op_kind_from_name(kind_name);
    if (!kind) fail_op(name, "", "unknown op '" + kind_name + "' (known: " + known_ops() + ")");
    if (info(*kind).where != OpWhere::Both)
      fail_op(name, kind_name, "is a block-graph op, not allowed in programs (known: " + known_ops() + ")");
    for (const auto& [key, _] : node.items())
      if (key != "name" && key != "op" && key != "inputs" && !(key == "dim" && has_dim(*kind)))
        fail_op(name, kind_name,
                "unknown key '" + key + "'" +
                    (has_dim(*kind) ? " (this op has name, op, inputs, dim)" : " (this op has name, op, inputs)"));

    Op op;
    op.kind = *kind;
    if (!node.contains("inputs") || !node["inputs"].is_array())
      fail_op(name, kind_name, "needs an array 'inputs' of names");
    const json& ins = node["inputs"];
    if (static_cast<int>(ins.size()) != arity(*kind))
      fail_op(name, kind_name,
              "takes " + std::to_string(arity(*kind)) + " input" + (arity(*kind) > 1 ? "s" : "") + ", got " +
                  std::to_string(ins.size()));
    int exps = is_exp_like(*kind) ? 1 : 0, path_exps = 0;
    for (int i = 0; i < arity(*kind); ++i) {
      if (!ins[i].is_string()) fail_op(name, kind_name, "inputs must be names (strings)");
      const auto it = index_.find(ins[i].get<std::string>());
      if (it == index_.end())
        fail_op(name, kind_name, "input '" + ins[i].get<std::string>() + "' is not an input or an earlier op");
      op.in[i] = it->second;
      path_exps = std::max(path_exps, exps_[it->second]);
    }
    if (has_dim(*kind)) {
      if (!node.contains("dim") || !is_int(node["dim"])) fail_op(name, kind_name, "needs an integer attribute 'dim'");
      const int64_t d = as_int(node["dim"]);
      const int rank = prog_.graph.shape(op.in[0]).rank;
      if (d < 0 || d >= rank)
        fail_op(name, kind_name, "dim " + std::to_string(d) + " is out of range for rank " + std::to_string(rank));
      op.dim = static_cast<int8_t>(d);
    }
    if (exps + path_exps > 1)
      fail_op(name, kind_name, "a path from an input passes two exps (exp or silu); LAX programs allow one per path");
    const Verdict verdict = prog_.graph.add_op(op);
    if (verdict == Verdict::TooMany) fail("too many ops (at most " + std::to_string(kMaxKernelOps) + ")");
    if (verdict != Verdict::Ok) fail_op(name, kind_name, std::string(describe(verdict)) + operand_shapes(op));
    add_name(name);
    exps_.push_back(exps + path_exps);
  }

  std::string operand_shapes(const Op& op) const {
    std::string r = " (";
    for (int i = 0; i < arity(op.kind); ++i) r += (i ? " and " : "") + to_string(prog_.graph.shape(op.in[i]));
    return r + ")";
  }

  void parse_outputs(const json& outs) {
    FixedVec<int32_t, kMaxOutputs> idx;
    for (const json& entry : outs) {
      if (!entry.is_string()) fail("outputs must be names of ops (strings)");
      const std::string name = entry.get<std::string>();
      const auto it = index_.find(name);
      if (it == index_.end()) fail("output '" + name + "' is not an op");
      if (it->second < prog_.graph.num_inputs) fail("output '" + name + "' names an input; outputs name ops");
      for (int32_t t : idx)
        if (t == it->second) fail("output '" + name + "' is listed twice");
      if (idx.full()) fail("too many outputs (at most " + std::to_string(kMaxOutputs) + ")");
      idx.push_back(it->second);
    }
    prog_.graph.set_outputs(idx.span());
  }

  // Every input feeds some op, and every op reaches an output.
  void check_uses() const {
    const KernelGraph& graph = prog_.graph;
    std::vector<bool> live(graph.num_tensors(), false);
    for (int32_t t : graph.outputs) live[t] = true;
    for (int i = graph.ops.size() - 1; i >= 0; --i)
      if (live[graph.ops[i].first_out])
        for (int32_t t : graph.operands(i)) live[t] = true;
    for (int t = 0; t < graph.num_tensors(); ++t) {
      if (live[t]) continue;
      if (t < graph.num_inputs) fail("input '" + prog_.tensor_names[t] + "' is not used by any op; remove it");
      fail_op(prog_.tensor_names[t], std::string(name_of(graph.ops[t - graph.num_inputs].op.kind)),
              "its result reaches no output; remove it or list it in outputs");
    }
  }

  void add_name(const std::string& name) {
    index_[name] = static_cast<int32_t>(prog_.tensor_names.size());
    prog_.tensor_names.push_back(name);
  }

  const std::string& origin_;
  Program prog_;
  std::map<std::string, int32_t> index_;
  std::vector<int> exps_;  // most exps on a path from an input to each tensor (LAX)
};

}  // namespace

Program parse_program(std::string_view text, const std::string& origin) { return Parser(origin).parse(text); }

Program load_program(const std::string& name_or_path) {
  for (const BuiltinProgram& b : builtin_programs())
    if (b.name == name_or_path) return parse_program(b.json, std::string(b.name));
  if (name_or_path.find('/') == std::string::npos && name_or_path.find('.') == std::string::npos)
    throw InputError(name_or_path + ": not a built-in program (see `ugsearch programs`) nor a file path");
  return parse_program(read_file(name_or_path), name_or_path);
}

}  // namespace ugs
