// See catalogue.hpp. Each model is built by walking its architecture as its reference
// implementation defines it (torchvision 0.14 models/resnet.py, vgg.py, mobilenetv2.py; Hugging
// Face transformers models/bert/modeling_bert.py), registering parameters in their state_dict
// order and counting each layer's multiply-accumulates at the reference input size. Batch-norm
// running statistics are buffers, not parameters, as in PyTorch's parameter counts.
#include "learn/catalogue.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>

namespace edgetrain::learn {
namespace {

using Kind = LayerKind;

struct Spatial {
  int64_t h = 0, w = 0;
  double area() const { return static_cast<double>(h) * static_cast<double>(w); }
};

// Collects layers in order, counts one sample's forward cost and records each layer for the compute
// model (layer_cost.hpp): kind, FLOPs, activation elements in and out, weights.
class Builder {
 public:
  explicit Builder(CatalogueModel& model) : m_(model) {}

  void param(const std::string& name, std::vector<int64_t> shape) {
    LayerInfo l;
    l.name = name;
    l.numel = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
    l.shape = std::move(shape);
    l.offset = m_.params;
    m_.params += l.numel;
    m_.layers.push_back(std::move(l));
  }

  // A k x k convolution (weight [out, in/groups, k, k]); returns the output's spatial size. A
  // grouped convolution with one group per input channel is depthwise.
  Spatial conv(const std::string& name, int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad, Spatial s,
               bool bias, int64_t groups = 1) {
    const Spatial o{(s.h + 2 * pad - k) / stride + 1, (s.w + 2 * pad - k) / stride + 1};
    if (s.h + 2 * pad < k || s.w + 2 * pad < k) {
      throw CatalogueError(m_.name + ": the input is too small for its layer " + name);
    }
    param(name + ".weight", {out, in / groups, k, k});
    const double outputs = static_cast<double>(out) * o.area();
    const double macs = outputs * static_cast<double>(in / groups) * k * k;
    macs_ += macs;
    double weights = static_cast<double>(out) * (in / groups) * k * k, adds = 0;
    if (bias) {
      param(name + ".bias", {out});
      adds = outputs;
      weights += out;
    }
    bias_adds_ += adds;
    layer(groups > 1 && groups == in ? Kind::depthwise : Kind::conv, 2 * macs + adds,
          static_cast<double>(in) * s.area() + outputs, weights, outputs);
    return o;
  }

  // A linear layer (weight [out, in]) applied to `tokens` positions.
  void linear(const std::string& name, int64_t in, int64_t out, int64_t tokens = 1) {
    param(name + ".weight", {out, in});
    param(name + ".bias", {out});
    const double t = static_cast<double>(tokens);
    macs_ += t * in * out;
    bias_adds_ += t * out;
    layer(Kind::dense, 2 * t * in * out + t * out, t * (in + out), static_cast<double>(in) * out + out, t * out);
  }

  // Batch norm and layer norm over `elements` values: a scale and a shift per channel (not counted in
  // the FLOPs, as in the reference counts).
  void norm(const std::string& name, int64_t channels, double elements) {
    param(name + ".weight", {channels});
    param(name + ".bias", {channels});
    m_.layers[m_.layers.size() - 2].norm = m_.layers.back().norm = true;
    layer(Kind::norm, 0, 2 * elements, 2.0 * channels, elements);
  }

  // Element-wise layers: an activation (ReLU, ReLU6, GELU, softmax, dropout) and a residual add.
  void activation(double elements) { layer(Kind::activation, 0, 2 * elements, 0, elements); }
  void residual_add(double elements) { layer(Kind::activation, 0, 3 * elements, 0, elements); }
  void pool(double in_elements, double out_elements) {
    layer(Kind::pool, 0, in_elements + out_elements, 0, out_elements);
  }

  // PyTorch's default embedding keeps a dense gradient of the whole table.
  void embedding(const std::string& name, int64_t entries, int64_t dim, int64_t tokens) {
    param(name + ".weight", {entries, dim});
    layer(Kind::dense, 0, static_cast<double>(tokens) * dim, static_cast<double>(entries) * dim,
          static_cast<double>(tokens) * dim);
  }

  // Multiply-accumulates of products between activations (attention), no parameters. Its output is not
  // known here (0): a cut is never placed after it (split learning cuts after a module's trailing layers).
  void products(double macs, double elements) {
    macs_ += macs;
    layer(Kind::dense, 2 * macs, elements, 0, 0);
  }

  void finish() {
    m_.forward_macs_per_sample = macs_;
    m_.forward_flops_per_sample = 2 * macs_ + bias_adds_;
  }

 private:
  // `outputs`: one sample's output elements (where split learning cuts).
  void layer(Kind kind, double flops, double elements, double weights, double outputs) {
    m_.compute_layers.push_back({kind, flops, 4 * elements, 4 * weights, 4 * outputs});
  }

  CatalogueModel& m_;
  double macs_ = 0, bias_adds_ = 0;
};

Spatial pooled(Spatial s, int64_t k, int64_t stride, int64_t pad) {
  return {(s.h + 2 * pad - k) / stride + 1, (s.w + 2 * pad - k) / stride + 1};
}

// torchvision's _make_divisible (MobileNetV2) and _round_to_multiple_of (MNASNet), the same rule:
// the nearest multiple of 8, never below 8 nor more than 10% below the value.
int64_t divisible(double v) {
  int64_t r = std::max<int64_t>(8, static_cast<int64_t>(v + 4) / 8 * 8);
  return r < 0.9 * v ? r + 8 : r;
}

// ImageNet classification at 224 x 224 (torchvision's reference resolution for these models).
CatalogueInput imagenet() {
  CatalogueInput in;
  in.channels = 3;
  in.height = in.width = 224;
  in.classes = 1000;
  in.raw_sample_bytes = 3 * 224 * 224;  // uint8 RGB at the model's input size
  in.dataset = "ImageNet-1k";
  in.train_samples = 1281167;
  in.test_samples = 50000;  // the validation set
  return in;
}

constexpr const char* kTorchvisionSource =
    "torchvision; published parameters and GMACs (its \"GFLOPS\"): https://pytorch.org/vision/stable/models.html";

// A torchvision image model at input `in` (channels, height, width; the reference one by default).
CatalogueModel image_model(const std::string& name, const std::string& description, const CatalogueInput& in) {
  CatalogueModel m;
  m.name = name;
  m.description = description;
  m.source = kTorchvisionSource;
  m.input = in;
  return m;
}

// torchvision ResNet (v1.5: the stride of a bottleneck block is on its 3x3 convolution).
CatalogueModel resnet(const std::string& name, bool bottleneck, std::array<int, 4> blocks, const CatalogueInput& in) {
  CatalogueModel m = image_model(name, "ResNet-" + name.substr(6) + ", ImageNet 3x224x224, 1000 classes", in);
  Builder b(m);
  const int64_t expansion = bottleneck ? 4 : 1;
  Spatial s = b.conv("conv1", in.channels, 64, 7, 2, 3, {in.height, in.width}, false);
  b.norm("bn1", 64, 64 * s.area());
  b.activation(64 * s.area());
  const Spatial p = pooled(s, 3, 2, 1);
  b.pool(64 * s.area(), 64 * p.area());
  s = p;
  int64_t inplanes = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t planes = int64_t{64} << stage;
    for (int j = 0; j < blocks[stage]; ++j) {
      const std::string p = "layer" + std::to_string(stage + 1) + "." + std::to_string(j) + ".";
      const int64_t stride = (j == 0 && stage > 0) ? 2 : 1;
      Spatial out;
      if (bottleneck) {
        b.conv(p + "conv1", inplanes, planes, 1, 1, 0, s, false);
        b.norm(p + "bn1", planes, planes * s.area());
        b.activation(planes * s.area());
        out = b.conv(p + "conv2", planes, planes, 3, stride, 1, s, false);
        b.norm(p + "bn2", planes, planes * out.area());
        b.activation(planes * out.area());
        b.conv(p + "conv3", planes, planes * expansion, 1, 1, 0, out, false);
        b.norm(p + "bn3", planes * expansion, planes * expansion * out.area());
      } else {
        out = b.conv(p + "conv1", inplanes, planes, 3, stride, 1, s, false);
        b.norm(p + "bn1", planes, planes * out.area());
        b.activation(planes * out.area());
        b.conv(p + "conv2", planes, planes, 3, 1, 1, out, false);
        b.norm(p + "bn2", planes, planes * out.area());
      }
      if (stride != 1 || inplanes != planes * expansion) {
        b.conv(p + "downsample.0", inplanes, planes * expansion, 1, stride, 0, s, false);
        b.norm(p + "downsample.1", planes * expansion, planes * expansion * out.area());
      }
      b.residual_add(planes * expansion * out.area());
      b.activation(planes * expansion * out.area());
      s = out;
      inplanes = planes * expansion;
    }
  }
  b.pool(inplanes * s.area(), inplanes);  // global average pooling
  b.linear("fc", inplanes, in.classes);
  b.finish();
  return m;
}

// torchvision VGG without batch norm: 3x3 convolutions (0 = 2x2 max-pool), then three linear layers.
CatalogueModel vgg(const std::string& name, const std::vector<int64_t>& plan, const CatalogueInput& input) {
  CatalogueModel m = image_model(name, "VGG-" + name.substr(3) + ", ImageNet 3x224x224, 1000 classes", input);
  Builder b(m);
  Spatial s{input.height, input.width};
  int64_t in = input.channels, index = 0;  // index in `features`: each convolution is followed by a ReLU
  for (int64_t v : plan) {
    if (v == 0) {
      const Spatial p = pooled(s, 2, 2, 0);
      b.pool(in * s.area(), in * p.area());
      s = p;
      index += 1;
    } else {
      s = b.conv("features." + std::to_string(index), in, v, 3, 1, 1, s, true);
      b.activation(v * s.area());
      index += 2;
      in = v;
    }
  }
  // The adaptive average pool to 7x7 (the identity at 224x224); classifier.{0,3,6} are the linear
  // layers, with a ReLU and a dropout after each of the first two.
  b.pool(in * s.area(), in * 49.0);
  b.linear("classifier.0", in * 7 * 7, 4096);
  b.activation(4096);
  b.activation(4096);
  b.linear("classifier.3", 4096, 4096);
  b.activation(4096);
  b.activation(4096);
  b.linear("classifier.6", 4096, input.classes);
  b.finish();
  return m;
}

// The width of a mobile model's variant in its name and description: 0.5 -> "050" and "0.5".
std::string width_suffix(double width) { return width == 1.0 ? "" : "_0" + std::to_string(std::lround(width * 100)); }
std::string width_text(double width) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%g", width);
  return std::string(buf) + (width == 1.0 ? ".0" : "");
}

// torchvision MobileNetV2 at width multiplier `width`: inverted residual blocks (expand 1x1,
// depthwise 3x3, project 1x1), each convolution without bias and followed by batch norm; channels
// scaled and made divisible by 8, the last 1280 never narrowed.
CatalogueModel mobilenet_v2(double width, const CatalogueInput& input) {
  CatalogueModel m = image_model("mobilenet_v2" + width_suffix(width),
                                 "MobileNetV2 (width " + width_text(width) + "), ImageNet 3x224x224, 1000 classes", input);
  Builder b(m);
  const int64_t stem = divisible(32 * width);
  Spatial s = b.conv("features.0.0", input.channels, stem, 3, 2, 1, {input.height, input.width}, false);
  b.norm("features.0.1", stem, stem * s.area());
  b.activation(stem * s.area());
  struct Stage {
    int64_t expand, channels, repeats, stride;
  };
  const Stage stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                          {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int64_t in = stem, feature = 1;
  for (const Stage& st : stages) {
    const int64_t channels = divisible(static_cast<double>(st.channels) * width);
    for (int64_t i = 0; i < st.repeats; ++i, ++feature) {
      const std::string p = "features." + std::to_string(feature) + ".conv.";
      const int64_t hidden = in * st.expand;
      int64_t part = 0;  // index in the block's `conv` sequence
      if (st.expand != 1) {
        b.conv(p + "0.0", in, hidden, 1, 1, 0, s, false);
        b.norm(p + "0.1", hidden, hidden * s.area());
        b.activation(hidden * s.area());
        part = 1;
      }
      const int64_t stride = i == 0 ? st.stride : 1;
      const Spatial out = b.conv(p + std::to_string(part) + ".0", hidden, hidden, 3, stride, 1, s, false, hidden);
      b.norm(p + std::to_string(part) + ".1", hidden, hidden * out.area());
      b.activation(hidden * out.area());
      b.conv(p + std::to_string(part + 1), hidden, channels, 1, 1, 0, out, false);
      b.norm(p + std::to_string(part + 2), channels, channels * out.area());
      if (stride == 1 && in == channels) b.residual_add(channels * out.area());
      s = out;
      in = channels;
    }
  }
  const int64_t last = divisible(1280 * std::max(1.0, width));
  const std::string head = "features." + std::to_string(feature);
  b.conv(head + ".0", in, last, 1, 1, 0, s, false);
  b.norm(head + ".1", last, last * s.area());
  b.activation(last * s.area());
  b.pool(last * s.area(), last);  // global average pooling
  b.activation(last);             // dropout
  b.linear("classifier.1", last, input.classes);
  b.finish();
  return m;
}

// torchvision MNASNet (B1) at depth multiplier `alpha` (mnasnet0_5, 0_75, 1_0): a stem, a depthwise
// separable block, six stacks of inverted residual blocks with 3x3 or 5x5 depthwise kernels, a 1x1
// head to 1280 channels. Names follow its `layers` sequence.
CatalogueModel mnasnet(double alpha, const CatalogueInput& input) {
  CatalogueModel m = image_model("mnasnet" + std::string(alpha == 1.0 ? "_100" : width_suffix(alpha)),
                                 "MNASNet-B1 (depth " + width_text(alpha) + "), ImageNet 3x224x224, 1000 classes", input);
  Builder b(m);
  std::array<int64_t, 8> d{32, 16, 24, 40, 80, 96, 192, 320};
  for (int64_t& c : d) c = divisible(static_cast<double>(c) * alpha);
  Spatial s = b.conv("layers.0", input.channels, d[0], 3, 2, 1, {input.height, input.width}, false);
  b.norm("layers.1", d[0], d[0] * s.area());
  b.activation(d[0] * s.area());
  b.conv("layers.3", d[0], d[0], 3, 1, 1, s, false, d[0]);
  b.norm("layers.4", d[0], d[0] * s.area());
  b.activation(d[0] * s.area());
  b.conv("layers.6", d[0], d[1], 1, 1, 0, s, false);
  b.norm("layers.7", d[1], d[1] * s.area());
  struct Stack {
    int64_t kernel, stride, expand, repeats;
  };
  const Stack stacks[] = {{3, 2, 3, 3}, {5, 2, 3, 3}, {5, 2, 6, 3}, {3, 1, 6, 2}, {5, 2, 6, 4}, {3, 1, 6, 1}};
  int64_t in = d[1];
  for (size_t k = 0; k < std::size(stacks); ++k) {
    const Stack& st = stacks[k];
    const int64_t out_channels = d[k + 2];
    for (int64_t i = 0; i < st.repeats; ++i) {
      const std::string p = "layers." + std::to_string(8 + k) + "." + std::to_string(i) + ".layers.";
      const int64_t mid = in * st.expand, stride = i == 0 ? st.stride : 1;
      b.conv(p + "0", in, mid, 1, 1, 0, s, false);
      b.norm(p + "1", mid, mid * s.area());
      b.activation(mid * s.area());
      const Spatial out = b.conv(p + "3", mid, mid, st.kernel, stride, st.kernel / 2, s, false, mid);
      b.norm(p + "4", mid, mid * out.area());
      b.activation(mid * out.area());
      b.conv(p + "6", mid, out_channels, 1, 1, 0, out, false);
      b.norm(p + "7", out_channels, out_channels * out.area());
      if (stride == 1 && in == out_channels) b.residual_add(out_channels * out.area());
      s = out;
      in = out_channels;
    }
  }
  b.conv("layers.14", in, 1280, 1, 1, 0, s, false);
  b.norm("layers.15", 1280, 1280 * s.area());
  b.activation(1280 * s.area());
  b.pool(1280 * s.area(), 1280);  // the mean over height and width
  b.activation(1280);             // dropout
  b.linear("classifier.1", 1280, input.classes);
  b.finish();
  return m;
}

// bert-base-uncased (12 layers, hidden 768, 12 heads, FFN 3072, vocabulary 30522, 512
// positions) with the pooler and a 2-class sequence-classification head
// (BertForSequenceClassification), at sequence length 128.
CatalogueModel bert_base() {
  constexpr int64_t kLayers = 12, kHidden = 768, kFfn = 3072, kSeq = 128, kClasses = 2, kHeads = 12;
  CatalogueModel m;
  m.name = "bert-base";
  m.description = "BERT-base (bert-base-uncased) + 2-class head, sequence length 128";
  m.source =
      "Hugging Face BertForSequenceClassification: BertModel's published 109,482,240 parameters + the head; "
      "11.17 GMACs at 128 tokens: https://github.com/cli99/flops-profiler";
  m.input.channels = m.input.height = 1;
  m.input.width = kSeq;
  m.input.classes = kClasses;
  m.input.raw_sample_bytes = kSeq * 4;  // int32 token ids
  m.input.dataset = "GLUE SST-2";
  m.input.train_samples = 67349;
  m.input.test_samples = 872;  // the validation set
  Builder b(m);
  const std::string e = "bert.embeddings.";
  const double tokens = kSeq * kHidden;  // values of one hidden state
  b.embedding(e + "word_embeddings", 30522, kHidden, kSeq);
  b.embedding(e + "position_embeddings", 512, kHidden, kSeq);
  b.embedding(e + "token_type_embeddings", 2, kHidden, kSeq);
  b.norm(e + "LayerNorm", kHidden, tokens);
  for (int64_t i = 0; i < kLayers; ++i) {
    const std::string p = "bert.encoder.layer." + std::to_string(i) + ".";
    for (const char* proj : {"query", "key", "value"}) b.linear(p + "attention.self." + proj, kHidden, kHidden, kSeq);
    const double scores = static_cast<double>(kHeads) * kSeq * kSeq;
    b.products(1.0 * kSeq * kSeq * kHidden, 2 * tokens + scores);  // Q K^T over all heads
    b.activation(scores);                                           // softmax
    b.products(1.0 * kSeq * kSeq * kHidden, scores + 2 * tokens);   // softmax(.) V
    b.linear(p + "attention.output.dense", kHidden, kHidden, kSeq);
    b.residual_add(tokens);
    b.norm(p + "attention.output.LayerNorm", kHidden, tokens);
    b.linear(p + "intermediate.dense", kHidden, kFfn, kSeq);
    b.activation(static_cast<double>(kSeq) * kFfn);  // GELU
    b.linear(p + "output.dense", kFfn, kHidden, kSeq);
    b.residual_add(tokens);
    b.norm(p + "output.LayerNorm", kHidden, tokens);
  }
  b.linear("bert.pooler.dense", kHidden, kHidden);  // the first token only
  b.activation(kHidden);                            // tanh
  b.linear("classifier", kHidden, kClasses);
  b.finish();
  return m;
}

constexpr int64_t M = 0;  // max-pool in a VGG plan

// Every catalogued model by name, built at a given input (BERT only at its own).
struct Entry {
  const char* name;
  CatalogueModel (*build)(const CatalogueInput&);
};
constexpr Entry kEntries[] = {
    {"resnet18", [](const CatalogueInput& in) { return resnet("resnet18", false, {2, 2, 2, 2}, in); }},
    {"resnet34", [](const CatalogueInput& in) { return resnet("resnet34", false, {3, 4, 6, 3}, in); }},
    {"resnet50", [](const CatalogueInput& in) { return resnet("resnet50", true, {3, 4, 6, 3}, in); }},
    {"resnet152", [](const CatalogueInput& in) { return resnet("resnet152", true, {3, 8, 36, 3}, in); }},
    {"vgg16",
     [](const CatalogueInput& in) {
       return vgg("vgg16", {64, 64, M, 128, 128, M, 256, 256, 256, M, 512, 512, 512, M, 512, 512, 512, M}, in);
     }},
    {"vgg19",
     [](const CatalogueInput& in) {
       return vgg("vgg19",
                  {64, 64, M, 128, 128, M, 256, 256, 256, 256, M, 512, 512, 512, 512, M, 512, 512, 512, 512, M}, in);
     }},
    {"mobilenet_v2", [](const CatalogueInput& in) { return mobilenet_v2(1.0, in); }},
    {"mobilenet_v2_075", [](const CatalogueInput& in) { return mobilenet_v2(0.75, in); }},
    {"mobilenet_v2_050", [](const CatalogueInput& in) { return mobilenet_v2(0.5, in); }},
    {"mnasnet_100", [](const CatalogueInput& in) { return mnasnet(1.0, in); }},
    {"mnasnet_075", [](const CatalogueInput& in) { return mnasnet(0.75, in); }},
    {"mnasnet_050", [](const CatalogueInput& in) { return mnasnet(0.5, in); }},
    {"bert-base", [](const CatalogueInput&) { return bert_base(); }},
};

std::vector<CatalogueModel> build() {
  std::vector<CatalogueModel> models;
  for (const Entry& e : kEntries) models.push_back(e.build(imagenet()));
  return models;
}

}  // namespace

const std::vector<CatalogueModel>& catalogue() {
  static const std::vector<CatalogueModel> models = build();
  return models;
}

const CatalogueModel* find_model(std::string_view name) {
  for (const auto& m : catalogue()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

CatalogueModel model_at_input(std::string_view name, int64_t channels, int64_t height, int64_t width) {
  for (const Entry& e : kEntries) {
    if (e.name != name) continue;
    if (name == "bert-base") throw CatalogueError("bert-base: its input is fixed (128 tokens)");
    CatalogueInput in = imagenet();
    in.channels = channels;
    in.height = height;
    in.width = width;
    in.raw_sample_bytes = channels * height * width;
    return e.build(in);
  }
  throw CatalogueError("unknown model \"" + std::string(name) + "\"");
}

std::vector<std::string_view> catalogue_names() {
  std::vector<std::string_view> names;
  for (const auto& m : catalogue()) names.push_back(m.name);
  return names;
}

namespace {
// 25557032 -> "25,557,032"
std::string grouped(int64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}
std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}
}  // namespace

std::string catalogue_markdown() {
  std::string md =
      "| `model.name` | Model | Parameters | Forward GMACs / sample | Training GFLOPs / sample | Reference data: "
      "train / test samples, bytes each | Source |\n|---|---|---|---|---|---|---|\n";
  for (const auto& m : catalogue()) {
    const auto& in = m.input;
    md += "| `" + m.name + "` | " + m.description + " | " + grouped(m.params) + " | " +
          fixed(m.forward_macs_per_sample / 1e9, 3) + " | " + fixed(m.step_flops_per_sample() / 1e9, 2) + " | " +
          in.dataset + ": " + grouped(in.train_samples) + " / " + grouped(in.test_samples) + ", " +
          grouped(in.raw_sample_bytes) + " | " + m.source + " |\n";
  }
  return md;
}

}  // namespace edgetrain::learn
