// The model catalogue: well-known models users plan with but do not train here (ResNets, VGGs,
// MobileNetV2, a BERT-base encoder). Each entry's layer list is built from its architecture, in
// the parameter order and with the names of its reference implementation (torchvision,
// Hugging Face transformers), and its forward cost is counted layer by layer with the same
// convention as learn::Model: 2 FLOPs per multiply-accumulate of each linear, convolution and
// attention product, plus one per bias add; normalisation, activations, pooling, residual adds
// and softmax are not counted. Each model also lists its layers for the compute model
// (layer_cost.hpp: kind, FLOPs, bytes moved). No LibTorch: timing-only runs and the scenario's
// validation use it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "learn/layer_cost.hpp"
#include "learn/layer_info.hpp"
#include "util/input_error.hpp"

namespace edgetrain::learn {

// An unknown name or an input a model cannot take (too small for its convolutions).
class CatalogueError : public std::runtime_error, public util::InputError {
 public:
  using std::runtime_error::runtime_error;
};

// What one sample is, and the reference data set the model is trained on (its sizes stand in
// for a data set in timing-only runs).
struct CatalogueInput {
  int64_t channels = 0, height = 0, width = 0;  // BERT: 1 x 1 x sequence length (token ids)
  int64_t classes = 0;
  int64_t raw_sample_bytes = 0;  // one stored sample: uint8 pixels, or int32 token ids
  std::string dataset;           // the reference data set, e.g. "ImageNet-1k"
  int64_t train_samples = 0, test_samples = 0;
};

struct CatalogueModel {
  std::string name;         // as written in scenarios: "resnet50"
  std::string description;  // one line: architecture and input
  std::string source;       // the reference implementation and where the published counts are
  std::vector<LayerInfo> layers;
  LayerCosts compute_layers;       // in forward order, at `input`'s size
  int64_t params = 0;                   // sum of the layers' numel
  double forward_macs_per_sample = 0;   // multiply-accumulates of one sample's forward pass
  double forward_flops_per_sample = 0;  // 2 x MACs + bias adds
  CatalogueInput input;
  // Training step per sample, as learn::Model: forward + a backward pass costing twice it.
  double step_flops_per_sample() const { return 3.0 * forward_flops_per_sample; }
};

// Every catalogued model, in a fixed order (built once, on first use).
const std::vector<CatalogueModel>& catalogue();
// The model named `name`, or null.
const CatalogueModel* find_model(std::string_view name);
// The model built for another input size (channels x height x width; its parameters change only
// with the channels). Throws CatalogueError for an unknown name, an input too small, or bert-base.
CatalogueModel model_at_input(std::string_view name, int64_t channels, int64_t height, int64_t width);
// The names, in catalogue order.
std::vector<std::string_view> catalogue_names();
// The catalogue as docs/reference/timing-only.md's table: name, parameters, training GFLOPs per
// sample, input, reference data set and source (tests/learn/catalogue_test.cpp keeps it in step).
std::string catalogue_markdown();

}  // namespace edgetrain::learn
