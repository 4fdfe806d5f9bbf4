// See catalogue.hpp. Each model is built by walking its architecture as its reference
// implementation defines it (torchvision 0.14 models/resnet.py, vgg.py, mobilenetv2.py; Hugging
// Face transformers models/bert/modeling_bert.py), registering parameters in their state_dict
// order and counting each layer's multiply-accumulates at the reference input size. Batch-norm
// running statistics are buffers, not parameters, as in PyTorch's parameter counts.
#include "learn/catalogue.hpp"

#include <array>
#include <cstdio>
#include <functional>
#include <numeric>

namespace edgetrain::learn {
namespace {

struct Spatial {
  int64_t h = 0, w = 0;
};

// Collects layers in order and counts one sample's forward cost.
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

  // A k x k convolution (weight [out, in/groups, k, k]); returns the output's spatial size.
  Spatial conv(const std::string& name, int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad, Spatial s,
               bool bias, int64_t groups = 1) {
    const Spatial o{(s.h + 2 * pad - k) / stride + 1, (s.w + 2 * pad - k) / stride + 1};
    param(name + ".weight", {out, in / groups, k, k});
    const double outputs = static_cast<double>(out) * o.h * o.w;
    macs_ += outputs * static_cast<double>(in / groups) * k * k;
    if (bias) {
      param(name + ".bias", {out});
      bias_adds_ += outputs;
    }
    return o;
  }

  // A linear layer (weight [out, in]) applied to `tokens` positions.
  void linear(const std::string& name, int64_t in, int64_t out, int64_t tokens = 1) {
    param(name + ".weight", {out, in});
    param(name + ".bias", {out});
    macs_ += static_cast<double>(tokens) * in * out;
    bias_adds_ += static_cast<double>(tokens) * out;
  }

  // Batch norm and layer norm: a scale and a shift per channel (not counted in the cost).
  void norm(const std::string& name, int64_t channels) {
    param(name + ".weight", {channels});
    param(name + ".bias", {channels});
  }

  void embedding(const std::string& name, int64_t entries, int64_t dim) { param(name + ".weight", {entries, dim}); }

  // Multiply-accumulates of products between activations (attention), no parameters.
  void products(double macs) { macs_ += macs; }

  void finish() {
    m_.forward_macs_per_sample = macs_;
    m_.forward_flops_per_sample = 2 * macs_ + bias_adds_;
  }

 private:
  CatalogueModel& m_;
  double macs_ = 0, bias_adds_ = 0;
};

Spatial pooled(Spatial s, int64_t k, int64_t stride, int64_t pad) {
  return {(s.h + 2 * pad - k) / stride + 1, (s.w + 2 * pad - k) / stride + 1};
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

// torchvision ResNet (v1.5: the stride of a bottleneck block is on its 3x3 convolution).
CatalogueModel resnet(const std::string& name, bool bottleneck, std::array<int, 4> blocks) {
  CatalogueModel m;
  m.name = name;
  m.description = "ResNet-" + name.substr(6) + ", ImageNet 3x224x224, 1000 classes";
  m.source = kTorchvisionSource;
  m.input = imagenet();
  Builder b(m);
  const int64_t expansion = bottleneck ? 4 : 1;
  Spatial s = b.conv("conv1", 3, 64, 7, 2, 3, {224, 224}, false);
  b.norm("bn1", 64);
  s = pooled(s, 3, 2, 1);
  int64_t inplanes = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t planes = int64_t{64} << stage;
    for (int j = 0; j < blocks[stage]; ++j) {
      const std::string p = "layer" + std::to_string(stage + 1) + "." + std::to_string(j) + ".";
      const int64_t stride = (j == 0 && stage > 0) ? 2 : 1;
      Spatial out;
      if (bottleneck) {
        b.conv(p + "conv1", inplanes, planes, 1, 1, 0, s, false);
        b.norm(p + "bn1", planes);
        out = b.conv(p + "conv2", planes, planes, 3, stride, 1, s, false);
        b.norm(p + "bn2", planes);
        b.conv(p + "conv3", planes, planes * expansion, 1, 1, 0, out, false);
        b.norm(p + "bn3", planes * expansion);
      } else {
        out = b.conv(p + "conv1", inplanes, planes, 3, stride, 1, s, false);
        b.norm(p + "bn1", planes);
        b.conv(p + "conv2", planes, planes, 3, 1, 1, out, false);
        b.norm(p + "bn2", planes);
      }
      if (stride != 1 || inplanes != planes * expansion) {
        b.conv(p + "downsample.0", inplanes, planes * expansion, 1, stride, 0, s, false);
        b.norm(p + "downsample.1", planes * expansion);
      }
      s = out;
      inplanes = planes * expansion;
    }
  }
  b.linear("fc", inplanes, 1000);  // after global average pooling
  b.finish();
  return m;
}

// torchvision VGG without batch norm: 3x3 convolutions (0 = 2x2 max-pool), then three linear layers.
CatalogueModel vgg(const std::string& name, const std::vector<int64_t>& plan) {
  CatalogueModel m;
  m.name = name;
  m.description = "VGG-" + name.substr(3) + ", ImageNet 3x224x224, 1000 classes";
  m.source = kTorchvisionSource;
  m.input = imagenet();
  Builder b(m);
  Spatial s{224, 224};
  int64_t in = 3, index = 0;  // index in `features`: each convolution is followed by a ReLU
  for (int64_t v : plan) {
    if (v == 0) {
      s = pooled(s, 2, 2, 0);
      index += 1;
    } else {
      s = b.conv("features." + std::to_string(index), in, v, 3, 1, 1, s, true);
      index += 2;
      in = v;
    }
  }
  // The adaptive average pool to 7x7 is the identity at 224x224; classifier.{0,3,6} are the
  // linear layers (ReLU and dropout in between).
  b.linear("classifier.0", in * 7 * 7, 4096);
  b.linear("classifier.3", 4096, 4096);
  b.linear("classifier.6", 4096, 1000);
  b.finish();
  return m;
}

// torchvision MobileNetV2, width 1.0: inverted residual blocks (expand 1x1, depthwise 3x3,
// project 1x1), each convolution without bias and followed by batch norm.
CatalogueModel mobilenet_v2() {
  CatalogueModel m;
  m.name = "mobilenet_v2";
  m.description = "MobileNetV2 (width 1.0), ImageNet 3x224x224, 1000 classes";
  m.source = kTorchvisionSource;
  m.input = imagenet();
  Builder b(m);
  Spatial s = b.conv("features.0.0", 3, 32, 3, 2, 1, {224, 224}, false);
  b.norm("features.0.1", 32);
  struct Stage {
    int64_t expand, channels, repeats, stride;
  };
  const Stage stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                          {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int64_t in = 32, feature = 1;
  for (const Stage& st : stages) {
    for (int64_t i = 0; i < st.repeats; ++i, ++feature) {
      const std::string p = "features." + std::to_string(feature) + ".conv.";
      const int64_t hidden = in * st.expand;
      int64_t part = 0;  // index in the block's `conv` sequence
      if (st.expand != 1) {
        b.conv(p + "0.0", in, hidden, 1, 1, 0, s, false);
        b.norm(p + "0.1", hidden);
        part = 1;
      }
      const Spatial out =
          b.conv(p + std::to_string(part) + ".0", hidden, hidden, 3, i == 0 ? st.stride : 1, 1, s, false, hidden);
      b.norm(p + std::to_string(part) + ".1", hidden);
      b.conv(p + std::to_string(part + 1), hidden, st.channels, 1, 1, 0, out, false);
      b.norm(p + std::to_string(part + 2), st.channels);
      s = out;
      in = st.channels;
    }
  }
  const std::string last = "features." + std::to_string(feature);
  b.conv(last + ".0", in, 1280, 1, 1, 0, s, false);
  b.norm(last + ".1", 1280);
  b.linear("classifier.1", 1280, 1000);  // after global average pooling and dropout
  b.finish();
  return m;
}

// bert-base-uncased (12 layers, hidden 768, 12 heads, FFN 3072, vocabulary 30522, 512
// positions) with the pooler and a 2-class sequence-classification head
// (BertForSequenceClassification), at sequence length 128.
CatalogueModel bert_base() {
  constexpr int64_t kLayers = 12, kHidden = 768, kFfn = 3072, kSeq = 128, kClasses = 2;
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
  b.embedding(e + "word_embeddings", 30522, kHidden);
  b.embedding(e + "position_embeddings", 512, kHidden);
  b.embedding(e + "token_type_embeddings", 2, kHidden);
  b.norm(e + "LayerNorm", kHidden);
  for (int64_t i = 0; i < kLayers; ++i) {
    const std::string p = "bert.encoder.layer." + std::to_string(i) + ".";
    for (const char* proj : {"query", "key", "value"}) b.linear(p + "attention.self." + proj, kHidden, kHidden, kSeq);
    b.products(2.0 * kSeq * kSeq * kHidden);  // Q K^T and softmax(.) V over all heads
    b.linear(p + "attention.output.dense", kHidden, kHidden, kSeq);
    b.norm(p + "attention.output.LayerNorm", kHidden);
    b.linear(p + "intermediate.dense", kHidden, kFfn, kSeq);
    b.linear(p + "output.dense", kFfn, kHidden, kSeq);
    b.norm(p + "output.LayerNorm", kHidden);
  }
  b.linear("bert.pooler.dense", kHidden, kHidden);  // the first token only
  b.linear("classifier", kHidden, kClasses);
  b.finish();
  return m;
}

std::vector<CatalogueModel> build() {
  std::vector<CatalogueModel> models;
  models.push_back(resnet("resnet18", false, {2, 2, 2, 2}));
  models.push_back(resnet("resnet50", true, {3, 4, 6, 3}));
  models.push_back(resnet("resnet152", true, {3, 8, 36, 3}));
  constexpr int64_t M = 0;  // max-pool
  models.push_back(vgg("vgg16", {64, 64, M, 128, 128, M, 256, 256, 256, M, 512, 512, 512, M, 512, 512, 512, M}));
  models.push_back(
      vgg("vgg19", {64, 64, M, 128, 128, M, 256, 256, 256, 256, M, 512, 512, 512, 512, M, 512, 512, 512, 512, M}));
  models.push_back(mobilenet_v2());
  models.push_back(bert_base());
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
