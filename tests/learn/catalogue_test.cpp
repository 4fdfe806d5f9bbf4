// The model catalogue against the published counts of its reference implementations, its layer
// lists against their own invariants, and the catalogue table of docs/reference/timing-only.md against the
// code.
#include "compute/layer.hpp"
#include "learn/catalogue.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

using namespace edgetrain::learn;

namespace {

struct Published {
  const char* name;
  int64_t params;
  double gmacs;  // rounded to two decimals by the publisher
};

// torchvision: https://pytorch.org/vision/stable/models.html ("Table of all available
// classification weights"; its GFLOPS column counts multiply-accumulates). BERT: BertModel of
// bert-base-uncased has 109,482,240 parameters (Hugging Face), plus 768 x 2 + 2 for the 2-class
// head; 11.17 GMACs at sequence length 128, batch 1 (https://github.com/cli99/flops-profiler,
// its BERT-base example).
// The width variants of MobileNetV2 have no published weights: their counts are what torchvision
// 0.14's own constructor gives (tools/compute/torchvision_counts.py prints them).
constexpr Published kPublished[] = {
    {"resnet18", 11689512, 1.81},
    {"resnet34", 21797672, 3.66},
    {"resnet50", 25557032, 4.09},
    {"resnet152", 60192808, 11.51},
    {"vgg16", 138357544, 15.47},
    {"vgg19", 143667240, 19.63},
    {"mobilenet_v2", 3504872, 0.30},
    {"mobilenet_v2_075", 2636424, 0.21},
    {"mobilenet_v2_050", 1968680, 0.10},
    {"mnasnet_100", 4383312, 0.31},
    {"mnasnet_075", 3170208, 0.22},
    {"mnasnet_050", 2218512, 0.10},
    {"bert-base", 109482240 + 768 * 2 + 2, 11.17},
};

}  // namespace

TEST_CASE("catalogue: parameter counts equal the published ones and MACs agree to the published two decimals") {
  CHECK(catalogue().size() == std::size(kPublished));
  for (const auto& p : kPublished) {
    CAPTURE(p.name);
    const CatalogueModel* m = find_model(p.name);
    REQUIRE(m != nullptr);
    CHECK(m->params == p.params);
    // Within half a unit of the last published digit: what rounding to two decimals allows.
    CHECK(std::fabs(m->forward_macs_per_sample / 1e9 - p.gmacs) <= 0.005);
    CHECK(m->step_flops_per_sample() == 3 * m->forward_flops_per_sample);
  }
}

TEST_CASE("catalogue: forward FLOPs are 2 per multiply-accumulate plus the bias adds") {
  // ResNets and MobileNetV2 have no convolution biases: only the final linear layer's 1000 adds.
  for (const char* name : {"resnet18", "resnet34", "resnet50", "resnet152", "mobilenet_v2", "mobilenet_v2_050",
                           "mnasnet_100"}) {
    CAPTURE(name);
    const CatalogueModel* m = find_model(name);
    CHECK(m->forward_flops_per_sample == 2 * m->forward_macs_per_sample + 1000);
  }
  // VGG16: one bias add per output of each convolution (2 at 224^2 x 64, 2 at 112^2 x 128,
  // 3 at 56^2 x 256, 3 at 28^2 x 512, 3 at 14^2 x 512) and of each linear layer.
  const double vgg16_biases = 2 * 224 * 224 * 64 + 2 * 112 * 112 * 128 + 3 * 56 * 56 * 256 + 3 * 28 * 28 * 512 +
                              3 * 14 * 14 * 512 + 4096 + 4096 + 1000;
  const CatalogueModel* vgg16 = find_model("vgg16");
  CHECK(vgg16->forward_flops_per_sample == 2 * vgg16->forward_macs_per_sample + vgg16_biases);
  // BERT-base at 128 tokens: per layer and token Q, K, V, output (768 each), FFN in (3072) and
  // out (768); then the pooler (768) and the head (2) on one token.
  const CatalogueModel* bert = find_model("bert-base");
  const double bert_biases = 12.0 * 128 * (4 * 768 + 3072 + 768) + 768 + 2;
  CHECK(bert->forward_flops_per_sample == 2 * bert->forward_macs_per_sample + bert_biases);
  // Its MACs: linear layers per token, the two attention products, pooler and head.
  const double bert_macs =
      12.0 * (128.0 * (4 * 768 * 768 + 2 * 768 * 3072) + 2.0 * 128 * 128 * 768) + 768 * 768 + 768 * 2;
  CHECK(bert->forward_macs_per_sample == bert_macs);
}

TEST_CASE("catalogue: layer lists tile the flat vector with the reference implementation's names and shapes") {
  for (const auto& m : catalogue()) {
    CAPTURE(m.name);
    int64_t offset = 0;
    std::set<std::string> names;
    for (const auto& l : m.layers) {
      CAPTURE(l.name);
      CHECK(l.offset == offset);
      int64_t numel = 1;
      for (int64_t d : l.shape) numel *= d;
      CHECK(l.numel == numel);
      CHECK(numel > 0);
      CHECK(names.insert(l.name).second);
      offset += l.numel;
    }
    CHECK(offset == m.params);
  }
  auto shape_of = [](const char* model, const std::string& layer) {
    for (const auto& l : find_model(model)->layers) {
      if (l.name == layer) return l.shape;
    }
    return std::vector<int64_t>{};
  };
  // torchvision state_dict tensor counts and a few shapes.
  CHECK(find_model("resnet18")->layers.size() == 62);
  CHECK(find_model("resnet50")->layers.size() == 161);
  CHECK(find_model("mobilenet_v2")->layers.size() == 158);
  CHECK(shape_of("resnet50", "layer2.0.downsample.0.weight") == std::vector<int64_t>{512, 256, 1, 1});
  CHECK(shape_of("resnet50", "fc.weight") == std::vector<int64_t>{1000, 2048});
  CHECK(shape_of("resnet18", "layer1.0.conv1.weight") == std::vector<int64_t>{64, 64, 3, 3});
  CHECK(shape_of("resnet18", "layer1.0.downsample.0.weight").empty());  // no projection in the first stage
  CHECK(shape_of("vgg16", "features.28.weight") == std::vector<int64_t>{512, 512, 3, 3});
  CHECK(shape_of("vgg16", "classifier.0.weight") == std::vector<int64_t>{4096, 25088});
  CHECK(shape_of("mobilenet_v2", "features.1.conv.0.0.weight") == std::vector<int64_t>{32, 1, 3, 3});
  CHECK(shape_of("mobilenet_v2", "features.2.conv.1.0.weight") == std::vector<int64_t>{96, 1, 3, 3});
  CHECK(shape_of("mobilenet_v2", "features.18.0.weight") == std::vector<int64_t>{1280, 320, 1, 1});
  CHECK(shape_of("bert-base", "bert.embeddings.word_embeddings.weight") == std::vector<int64_t>{30522, 768});
  CHECK(shape_of("bert-base", "bert.encoder.layer.11.intermediate.dense.weight") == std::vector<int64_t>{3072, 768});
  CHECK(find_model("bert-base")->layers.back().name == "classifier.bias");
  CHECK(find_model("mnasnet_050")->layers.size() == 158);
  CHECK(shape_of("mnasnet_050", "layers.13.0.layers.3.weight") == std::vector<int64_t>{576, 1, 3, 3});
  CHECK(shape_of("mobilenet_v2_050", "features.18.0.weight") == std::vector<int64_t>{1280, 160, 1, 1});
}

TEST_CASE("catalogue: compute layers carry the model's FLOPs, and other inputs rebuild it") {
  for (const auto& m : catalogue()) {
    CAPTURE(m.name);
    CHECK(edgetrain::compute::forward_flops(m.compute_layers) == m.forward_flops_per_sample);
  }
  // torchvision's resnet18 on 3x32x32: 37,523,456 MACs (counted by its own forward pass).
  const CatalogueModel small = model_at_input("resnet18", 3, 32, 32);
  CHECK(small.forward_macs_per_sample == 37523456);
  CHECK(small.params == find_model("resnet18")->params);
  CHECK_THROWS_AS(model_at_input("bert-base", 1, 1, 64), CatalogueError);
  CHECK_THROWS_AS(model_at_input("resnet", 3, 32, 32), CatalogueError);
}

TEST_CASE("catalogue: lookups and inputs") {
  CHECK(find_model("resnet") == nullptr);
  CHECK(find_model("ResNet50") == nullptr);
  const auto names = catalogue_names();
  REQUIRE(names.size() == catalogue().size());
  for (size_t i = 0; i < names.size(); ++i) CHECK(find_model(names[i]) == &catalogue()[i]);
  const auto& in = find_model("vgg19")->input;
  CHECK(in.channels * in.height * in.width == 3 * 224 * 224);
  CHECK(in.classes == 1000);
  CHECK(in.train_samples == 1281167);
  CHECK(find_model("bert-base")->input.width == 128);
}

TEST_CASE("catalogue: the timing-only reference holds the table generated from the catalogue") {
  std::ifstream in(std::string(EDGETRAIN_SOURCE_DIR) + "/docs/reference/timing-only.md");
  std::stringstream readme;
  readme << in.rdbuf();
  const std::string table = catalogue_markdown();
  const std::string hint =
      "docs/reference/timing-only.md is out of date; the table between the catalogue markers should be:\n" + table;
  CHECK_MESSAGE(readme.str().find("<!-- catalogue:begin -->\n" + table + "<!-- catalogue:end -->") != std::string::npos,
                hint);
}
