// See published.hpp. Every figure below is copied from its source; none is estimated. The search for
// published PyTorch training steps of catalogue models on the Jetson Orin Nano, a mid-range phone and a
// NUC-class mini PC found none (inference benchmarks, or training of models outside the catalogue
// without per-step times), and on the Jetson Nano one approximate figure: those classes are derived,
// not fitted (devices.cpp), and the Jetson Nano's figure checks its derivation (held out).
#include "compute/published.hpp"

namespace edgetrain::compute {
namespace {

// The Flower Labs benchmark: each timm model trained from scratch with PyTorch on the board's CPU,
// 20 SGD steps of 16 random 3x224x224 images held in memory, no warm-up; t_train is the time of the
// 20 steps. timm's resnet18/34/50, mobilenetv2_050/100 and mnasnet_050/075/100 are torchvision's
// architectures (same parameter counts). The Raspberry Pi 4 figures are the t_train column of
// results/blog/rpi4_bench_results.pkl; the Raspberry Pi 5 ones are the rows of that table printed in
// plot.ipynb (its own results file is not in the repository), the only Pi 5 rows of catalogue models.
constexpr Source kFlowerRpi{
    "Raspberry Pi 5: Ready for Federated Vision (J. Fernandez-Marques, Flower Labs blog, 2023-12-07); data: "
    "github.com/jafermarq/federated-embedded-vision results/blog/rpi4_bench_results.pkl and plot.ipynb",
    "https://flower.ai/blog/2023-12-07-raspberrypi-is-ready-for-fl/",
    "PyTorch on the CPU, timm models, batch 16 of 3x224x224, SGD, 20 steps timed (t_train)"};

// NVIDIA's Jetson Nano tutorial: torchvision's ResNet-18 (ImageNet weights, last layer reshaped, every
// parameter trained) on the Nano's GPU, FP32, batch 8 (train.py's default), 224x224 crops, SGD with
// momentum; JPEG decoding by 2 loader workers included. Its table gives "~15 minutes" per epoch of the
// PlantCLEF subset's 10,475 images: 1,310 steps of 8 (the last of 3).
constexpr Source kJetsonTutorial{
    "Hello AI World: Transfer Learning with PyTorch (D. Franklin, NVIDIA, jetson-inference, "
    "docs/pytorch-transfer-learning.md), training time per epoch on Jetson Nano, PlantCLEF row",
    "https://github.com/dusty-nv/jetson-inference/blob/master/docs/pytorch-transfer-learning.md",
    "PyTorch on the GPU, resnet18, batch 8 of 3x224x224 from JPEG files, SGD, one epoch of 1,310 steps, "
    "\"~15 minutes\" (approximate, data loading included)"};

constexpr Measurement kMeasurements[] = {
    {"rpi4", "resnet18", 16, 218.366399, 20, false, &kFlowerRpi},
    {"rpi4", "resnet34", 16, 407.242998, 20, true, &kFlowerRpi},
    {"rpi4", "resnet50", 16, 652.536266, 20, false, &kFlowerRpi},
    {"rpi4", "mobilenet_v2_050", 16, 152.615578, 20, true, &kFlowerRpi},
    {"rpi4", "mobilenet_v2", 16, 305.473201, 20, false, &kFlowerRpi},
    {"rpi4", "mnasnet_050", 16, 153.676893, 20, false, &kFlowerRpi},
    {"rpi4", "mnasnet_075", 16, 242.666200, 20, true, &kFlowerRpi},
    {"rpi4", "mnasnet_100", 16, 298.357904, 20, false, &kFlowerRpi},
    {"rpi5", "mnasnet_075", 16, 116.132641, 20, true, &kFlowerRpi},
    {"rpi5", "mnasnet_100", 16, 144.697303, 20, false, &kFlowerRpi},
    {"jetson_nano", "resnet18", 8, 900, 1310, true, &kJetsonTutorial},
};

}  // namespace

std::span<const Measurement> published_measurements() { return kMeasurements; }

}  // namespace edgetrain::compute
