// See model.hpp.
#include "scenario/keys/model.hpp"

#include <string_view>

#include "input/text.hpp"
#include "learn/catalogue.hpp"
#include "scenario/error.hpp"
#include "scenario/rows.hpp"

namespace edgetrain::scenario::keys {

namespace text = input::text;
namespace {

constexpr const char* kWhyWidth = "one 65536 x 65536 layer is already 16 GiB of fp32 weights";

}  // namespace

std::vector<KeySpec> model_rows() {
  using nlohmann::json;
  const Condition small_model = when("model.name", {"mlp", "cnn"});
  std::vector<std::string> model_names{"mlp", "cnn", "torchscript"}, catalogue_names;
  for (std::string_view name : learn::catalogue_names()) catalogue_names.emplace_back(name);
  model_names.insert(model_names.end(), catalogue_names.begin(), catalogue_names.end());
  return {
      enum_key("model.name", model_names,
               "Model architecture: mlp and cnn train for real, as does torchscript (your own module, "
               "model.file); the catalogue models (" +
                   text::join(catalogue_names, ", ") +
                   ", see \"Model catalogue\") only with training.compute timing-only.")
          .def("mlp")
          .fills(&Scenario::model, &ModelSpec::name),
      path_key("model.file", PathKind::File,
               "A TorchScript archive (torch.jit.script or torch.jit.trace, then .save; relative to the scenario): "
               "its weights are the initial model, and its FLOPs and activations are measured from one forward "
               "pass.")
          .only_when(when("model.name", {"torchscript"}))
          .required_if(when("model.name", {"torchscript"}))
          .fills(&Scenario::model, &ModelSpec::file),
      int_list_key("model.hidden", "Hidden layer widths; [] = the model's default (mlp [128], cnn [50]).")
          .only_when(small_model)
          .at_least(1)
          .limit(65536, kWhyWidth)
          .entries_limit(64, "far deeper than the models edge devices train; each layer holds its own tensors")
          .def(json::array())
          .fills(&Scenario::model, &ModelSpec::hidden),
      int_list_key("model.conv_channels", "Output channels of the convolution layers (cnn).")
          .at_least(1)
          .limit(4096, "a 4096 x 4096 5x5 convolution is already 1.6 GiB of fp32 weights")
          .entries_limit(16, "each convolution with 2x2 pooling at least halves the input: the widest allows 14")
          .only_when(small_model)
          .def(json::array({10, 20}))
          .fills(&Scenario::model, &ModelSpec::conv_channels),
      integer_key("model.conv_kernel", "Side of the square convolution kernels (cnn).")
          .at_least(1)
          .limit(15, "wider than any convolution the cnn's small inputs allow")
          .only_when(small_model)
          .def(5)
          .fills(&Scenario::model, &ModelSpec::conv_kernel),
      enum_key("model.conv_padding", {"valid", "same"},
               "Convolution padding (cnn): valid = none, each convolution shrinks its input by kernel - 1; same = "
               "kernel / 2 each side (odd kernels), so only the 2x2 pooling halves it.")
          .only_when(small_model)
          .def("valid")
          .fills(&Scenario::model, &ModelSpec::conv_padding),
      enum_key("model.cost_as", catalogue_names,
               "A catalogue model whose costs the run charges: each step costs its FLOPs per sample and each "
               "message its size, while the mlp or cnn trains for real (results say so).")
          .allowed_only_when(small_model)
          .null_default("the model's own costs")
          .fills(&Scenario::model, &ModelSpec::cost_as),
  };
}

std::vector<Rule> model_rules() {
  return {
      {"model.conv_padding",
       "`same` needs an odd `model.conv_kernel` (its padding, kernel / 2 each side, keeps the side only then).",
       [](const nlohmann::json& r) {
         const auto& m = r.at("model");
         if (!m.contains("conv_padding") || m.at("conv_padding") != "same") return;
         const int64_t kernel = m.at("conv_kernel").get<int64_t>();
         if (kernel % 2 == 0) {
           throw ScenarioError("model.conv_padding: \"same\" needs an odd model.conv_kernel, not " +
                               std::to_string(kernel));
         }
       }},
      {"model.name",
       "A catalogue model needs `training.compute` timing-only (edgetrain trains only mlp and cnn); a real run "
       "charges a catalogue model's costs with `model.cost_as`.",
       [](const nlohmann::json& r) {
         const std::string name = r.at("model").at("name").get<std::string>();
         if (!learn::find_model(name) || r.at("training").at("compute") != "real") return;
         throw ScenarioError("model.name: " + text::show(name) +
                             " is a catalogue model, which edgetrain does not train: set training.compute to "
                             "\"timing-only\", or train mlp or cnn with model.cost_as " +
                             text::show(name) + " to charge its FLOPs and message sizes");
       }},
  };
}

}  // namespace edgetrain::scenario::keys
