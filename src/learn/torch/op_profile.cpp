// See op_profile.hpp. The recording hooks ATen's RecordFunction (what torch.profiler stands on)
// for operator calls on this thread only; only the outermost call counts, so a conv2d is not
// counted again as the convolution and the kernels it calls.
#include "learn/torch/op_profile.hpp"

#include <ATen/record_function.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <string_view>

#include "learn/torch/torch_pch.hpp"

namespace edgetrain::learn {
namespace {

thread_local std::vector<OpCall>* recording = nullptr;
thread_local int depth = 0;

std::vector<int64_t> shape_of(const at::Tensor& t) { return t.sizes().vec(); }

void add_values(const c10::IValue& v, OpCall& call) {
  if (v.isTensor()) {
    if (v.toTensor().defined()) call.inputs.push_back(shape_of(v.toTensor()));
  } else if (v.isInt()) {
    call.ints.push_back(v.toInt());
  } else if (v.isIntList()) {
    for (int64_t i : v.toIntVector()) call.ints.push_back(i);
  } else if (v.isTensorList()) {  // a recurrent layer's states and weights
    for (const at::Tensor& t : v.toTensorVector()) {
      if (t.defined()) call.inputs.push_back(shape_of(t));
    }
  }
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  if (++depth == 1 && recording) {
    OpCall call;
    call.name = fn.name();
    for (const c10::IValue& v : fn.inputs()) add_values(v, call);
    recording->push_back(std::move(call));
  }
  return nullptr;
}

void on_end(const at::RecordFunction& fn, at::ObserverContext*) {
  if (depth-- == 1 && recording && !recording->empty()) {
    for (const c10::IValue& v : fn.outputs()) {
      if (v.isTensor() && v.toTensor().defined()) recording->back().outputs.push_back(shape_of(v.toTensor()));
    }
  }
}

double numel(const std::vector<int64_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), 1.0, [](double a, int64_t d) { return a * static_cast<double>(d); });
}

double total(const std::vector<std::vector<int64_t>>& shapes) {
  double n = 0;
  for (const auto& s : shapes) n += numel(s);
  return n;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Operations that only reinterpret or query a tensor: no arithmetic, no bytes worth charging.
const std::set<std::string_view> kShapeOps{
    "aten::view",      "aten::reshape",  "aten::_reshape_alias", "aten::flatten", "aten::t",
    "aten::transpose", "aten::permute",  "aten::squeeze",        "aten::unsqueeze", "aten::expand",
    "aten::size",      "aten::numel",    "aten::dim",            "aten::select",  "aten::slice",
    "aten::detach",    "aten::to",       "aten::alias",          "aten::as_strided", "aten::empty",
    "aten::zeros",     "aten::ones",     "aten::dropout",        "aten::feature_dropout", "aten::contiguous",
    "aten::Int",       "aten::ScalarImplicit", "aten::item",     "aten::_local_scalar_dense"};

bool is_conv(std::string_view n) {
  return n == "aten::conv1d" || n == "aten::conv2d" || n == "aten::conv3d" || n == "aten::convolution" ||
         n == "aten::_convolution";
}
bool is_norm(std::string_view n) {
  return n == "aten::batch_norm" || n == "aten::layer_norm" || n == "aten::group_norm" || n == "aten::instance_norm";
}
bool is_pool(std::string_view n) {
  return starts_with(n, "aten::max_pool") || starts_with(n, "aten::avg_pool") || starts_with(n, "aten::adaptive_") ||
         n == "aten::mean";
}

}  // namespace

std::vector<OpCall> record_ops(const std::function<void()>& forward) {
  std::vector<OpCall> calls;
  recording = &calls;
  depth = 0;
  const at::CallbackHandle handle = at::addThreadLocalCallback(
      at::RecordFunctionCallback(on_start, on_end).needsInputs(true).needsOutputs(true).scopes({at::RecordScope::FUNCTION}));
  try {
    forward();
  } catch (...) {
    at::removeCallback(handle);
    recording = nullptr;
    throw;
  }
  at::removeCallback(handle);
  recording = nullptr;
  return calls;
}

OpCosts cost_ops(const std::vector<OpCall>& calls, int64_t batch) {
  OpCosts out;
  const double b = static_cast<double>(batch);
  for (const OpCall& c : calls) {
    if (kShapeOps.count(c.name) || c.outputs.empty() || c.inputs.empty()) continue;
    const double out_numel = total(c.outputs);
    const double in_bytes = 4 * numel(c.inputs[0]), out_bytes = 4 * out_numel;
    LayerCost l;
    l.activation_bytes = (in_bytes + out_bytes) / b;
    l.output_bytes = out_bytes / b;
    if (is_conv(c.name) && c.inputs.size() >= 2) {
      const auto& w = c.inputs[1];  // [out, in / groups, k...]
      const double per_output = numel(w) / static_cast<double>(w.at(0));
      const bool bias = c.inputs.size() >= 3;
      l.kind = w.at(1) == 1 && c.inputs[0].at(1) > 1 ? LayerKind::depthwise : LayerKind::conv;
      l.flops = (2 * per_output + (bias ? 1 : 0)) * out_numel / b;
      l.weight_bytes = 4 * (numel(w) + (bias ? numel(c.inputs[2]) : 0));
    } else if (c.name == "aten::linear" && c.inputs.size() >= 2) {
      const auto& w = c.inputs[1];  // [out, in]
      const bool bias = c.inputs.size() >= 3;
      l.flops = (2 * static_cast<double>(w.at(1)) + (bias ? 1 : 0)) * out_numel / b;
      l.weight_bytes = 4 * (numel(w) + (bias ? numel(c.inputs[2]) : 0));
    } else if (c.name == "aten::addmm" && c.inputs.size() == 3) {  // bias + mat1 [n, k] x mat2 [k, m]
      l.flops = (2 * static_cast<double>(c.inputs[1].back()) + 1) * out_numel / b;
      l.weight_bytes = 4 * (numel(c.inputs[0]) + numel(c.inputs[2]));
      l.activation_bytes = (4 * numel(c.inputs[1]) + out_bytes) / b;
    } else if ((c.name == "aten::mm" || c.name == "aten::matmul" || c.name == "aten::bmm") && c.inputs.size() == 2) {
      l.flops = 2 * static_cast<double>(c.inputs[0].back()) * out_numel / b;
    } else if ((c.name == "aten::lstm" || c.name == "aten::gru" || c.name == "aten::rnn_tanh") && c.outputs.size() >= 2) {
      // input, states, then each layer's w_ih [gates x H, in], w_hh [gates x H, H] and biases: each
      // weight matrix is applied once per time step of each sequence (output [.., .., H x directions]).
      double weights = 0, params = 0;
      for (size_t i = 1; i < c.inputs.size(); ++i) {
        if (c.inputs[i].size() == 2) weights += numel(c.inputs[i]);
        if (c.inputs[i].size() <= 2) params += numel(c.inputs[i]);
      }
      const double steps = out_numel > 0 ? numel(c.outputs[0]) / static_cast<double>(c.outputs[0].back()) : 0;
      l.flops = 2 * weights * steps / b;
      l.weight_bytes = 4 * params;
    } else if (is_norm(c.name)) {
      l.kind = LayerKind::norm;
      if (c.inputs.size() >= 2) l.weight_bytes = 4 * total({c.inputs.begin() + 1, c.inputs.end()});
    } else if (is_pool(c.name)) {
      l.kind = LayerKind::pool;
    } else {
      l.kind = LayerKind::activation;  // element-wise or unknown: memory-bound, as the catalogue counts them
    }
    if (l.kind == LayerKind::dense && l.flops == 0) l.kind = LayerKind::activation;
    out.layers.push_back(l);
    out.activation_floats_per_sample += out_numel / b;
  }
  return out;
}

}  // namespace edgetrain::learn
