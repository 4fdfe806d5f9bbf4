// The LibTorch-free model shape against the LibTorch model it describes.
#include "learn/model_shape.hpp"

#include <doctest/doctest.h>

using namespace edgetrain::learn;

TEST_CASE("model shape: parameter counts match the LibTorch models") {
  ModelConfig mlp;
  mlp.hidden = {16, 8};
  mlp.height = mlp.width = 8;
  mlp.classes = 4;
  ModelConfig cnn;
  cnn.name = "cnn";
  cnn.conv_channels = {3, 5};
  cnn.hidden = {7};
  ModelConfig defaults;  // mlp [128] on 28x28
  ModelConfig cnn_defaults;
  cnn_defaults.name = "cnn";
  ModelConfig adacomp_paper;  // Hardy et al. 2017: conv 3x3x32, conv 3x3x64, FC 3136x128, FC 128x10
  adacomp_paper.name = "cnn";
  adacomp_paper.conv_channels = {32, 64};
  adacomp_paper.conv_kernel = 3;
  adacomp_paper.conv_same = true;
  adacomp_paper.hidden = {128};
  for (const ModelConfig& c : {mlp, cnn, defaults, cnn_defaults, adacomp_paper}) {
    CAPTURE(c.name);
    const ModelShape shape = model_shape(c);
    const Model model(c);
    CHECK(shape.params == static_cast<double>(model.num_params()));
    CHECK(shape.forward_flops_per_sample == model.forward_flops_per_sample());
    REQUIRE(shape.layers.size() == model.layers().size());
    for (size_t i = 0; i < shape.layers.size(); ++i) {
      CAPTURE(model.layers()[i].name);
      CHECK(shape.layers[i].name == model.layers()[i].name);
      CHECK(shape.layers[i].shape == model.layers()[i].shape);
      CHECK(shape.layers[i].offset == model.layers()[i].offset);
      CHECK(shape.layers[i].numel == model.layers()[i].numel);
    }
  }
  CHECK(model_shape(adacomp_paper).params == 421642);  // the paper's count
  CHECK(model_shape(adacomp_paper).layers.at(4).shape == std::vector<int64_t>{128, 3136});
  // mlp 64-16-8-4: input, linear + ReLU outputs, logits and their log-softmax.
  CHECK(model_shape(mlp).activation_floats_per_sample == 64 + 2 * 16 + 2 * 8 + 2 * 4);
}

TEST_CASE("model shape: sizes no model could have are computed, not overflowed, and bad inputs refused") {
  ModelConfig huge;
  huge.hidden = std::vector<int64_t>(16, 65536);
  // 784 x 65536 + 15 x 65536^2 + 65536 x 10 weights, plus biases: 6.45e10, beyond int32 and exact in double.
  CHECK(model_shape(huge).params == 784.0 * 65536 + 15 * 65536.0 * 65536 + 65536 * 10 + 16 * 65536 + 10);
  ModelConfig tiny;
  tiny.name = "cnn";
  tiny.height = tiny.width = 6;
  CHECK_THROWS_AS(model_shape(tiny), ModelError);
}
