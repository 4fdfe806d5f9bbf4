// See published.hpp. Every figure below is copied from its source; none is estimated. The search for
// published PyTorch training steps of catalogue models on the Jetson Orin Nano, a mid-range phone and a
// NUC-class mini PC found none (inference benchmarks, or training of models outside the catalogue
// without per-step times): those classes are derived, not fitted (devices.cpp). On the Jetson Nano, two
// rows of NVIDIA's tutorial, both ResNet-18: one is fitted, the other (a range) held out.
#include "compute/published.hpp"

#include <cmath>

namespace edgetrain::compute {
namespace {

// The Flower Labs benchmark (github.com/jafermarq/federated-embedded-vision): each timm model trained
// from scratch with PyTorch (1.13 in the repository's requirements.txt) on the board's CPU, SGD, 20
// steps of 16 random 3x224x224 images read from files (ImageFolder, no loader workers, so decoding is
// inside the timed loop), no warm-up; t_train is the time of the 20 steps. timm's resnet18/34/50, mobilenetv2_050/100 and mnasnet_050/075/100 are
// torchvision's architectures (same parameter counts), which the catalogue follows.
constexpr const char* kFlowerSetting =
    "PyTorch on the CPU, timm models, batch 16 of 3x224x224 random images read from files, SGD, 20 steps "
    "timed (t_train)";

// Raspberry Pi 4: the t_train column of the results file behind the blog's plot.
constexpr Source kFlowerRpi4{
    "Raspberry Pi 5: Ready for Federated Vision (J. Fernandez-Marques, Flower Labs blog, 2023-12-07); Raspberry "
    "Pi 4 data: github.com/jafermarq/federated-embedded-vision results/blog/rpi4_bench_results.pkl",
    "https://flower.ai/blog/2023-12-07-raspberrypi-is-ready-for-fl/", kFlowerSetting};

// Raspberry Pi 5, ResNets and MobileNetV2: the table the repository's README prints as the output of the
// blog's benchmark run (`python main.py job.max_steps=20 dataset_fs=in_fs`) on a Raspberry Pi 5. Its
// own results file (results/blog/rpi5_bench_results.pkl) is listed in the repository but was not
// retrievable here.
constexpr Source kFlowerRpi5Readme{
    "Embedded Federated Vision, README \"Run the Benchmark\" (J. Fernandez-Marques, "
    "github.com/jafermarq/federated-embedded-vision, 2023-12-07), the Raspberry Pi 5 table",
    "https://github.com/jafermarq/federated-embedded-vision/blob/17ecd8b098384d365b2749cd42b1e63dc557da29/README.md",
    kFlowerSetting};

// Raspberry Pi 5, MNASNets: the rows of the Pi 5 results printed in the repository's notebook (the
// README's table stops before them).
constexpr Source kFlowerRpi5Notebook{
    "Embedded Federated Vision, plot.ipynb's printed results, Raspberry Pi 5 rows (J. Fernandez-Marques, "
    "github.com/jafermarq/federated-embedded-vision, 2023-12-07)",
    "https://github.com/jafermarq/federated-embedded-vision/blob/c2b22cef0772528a5ac1fa1f26f2e431a7190944/plot.ipynb",
    kFlowerSetting};

// NVIDIA's Jetson Nano tutorial: torchvision's ResNet-18 (ImageNet weights, last layer reshaped, every
// parameter trained) on the Nano's GPU, FP32, batch 8 (train.py's default), 224x224 crops, SGD with
// momentum; JPEG decoding by 2 loader workers included. Its table gives the approximate time of one
// training pass over each data set on a Jetson Nano: PlantCLEF's 10,475 images "~15 minutes" (1,310
// steps of 8, the last of 3), Cat/Dog's 5,000 images "~7-8 minutes" (625 steps of 8).
constexpr const char* kJetsonSetting =
    "PyTorch on the GPU, resnet18, batch 8 of 3x224x224 from JPEG files, SGD, one epoch per row, approximate "
    "(data loading included)";
constexpr Source kJetsonPlantClef{
    "Hello AI World: Transfer Learning with PyTorch (D. Franklin, NVIDIA, jetson-inference, "
    "docs/pytorch-transfer-learning.md), time per epoch on Jetson Nano, PlantCLEF row (\"~15 minutes\")",
    "https://github.com/dusty-nv/jetson-inference/blob/master/docs/pytorch-transfer-learning.md", kJetsonSetting};
constexpr Source kJetsonCatDog{
    "Hello AI World: Transfer Learning with PyTorch (D. Franklin, NVIDIA, jetson-inference, "
    "docs/pytorch-transfer-learning.md), time per epoch on Jetson Nano, Cat/Dog row (\"~7-8 minutes\")",
    "https://github.com/dusty-nv/jetson-inference/blob/master/docs/pytorch-transfer-learning.md", kJetsonSetting};

// Held out by published.hpp's rule (training FLOPs per step: mobilenet_v2_050 < mnasnet_050 <
// mnasnet_075 < mobilenet_v2 < mnasnet_100 < resnet18 < resnet34 < resnet50).
constexpr Measurement kMeasurements[] = {
    {"rpi4", "resnet18", 16, 218.366399, 20, true, &kFlowerRpi4},
    {"rpi4", "resnet34", 16, 407.242998, 20, false, &kFlowerRpi4},
    {"rpi4", "resnet50", 16, 652.536266, 20, false, &kFlowerRpi4},
    {"rpi4", "mobilenet_v2_050", 16, 152.615578, 20, false, &kFlowerRpi4},
    {"rpi4", "mobilenet_v2", 16, 305.473201, 20, true, &kFlowerRpi4},
    {"rpi4", "mnasnet_050", 16, 153.676893, 20, true, &kFlowerRpi4},
    {"rpi4", "mnasnet_075", 16, 242.666200, 20, false, &kFlowerRpi4},
    {"rpi4", "mnasnet_100", 16, 298.357904, 20, false, &kFlowerRpi4},
    {"rpi5", "resnet18", 16, 116.850590, 20, false, &kFlowerRpi5Readme},
    {"rpi5", "resnet34", 16, 219.803324, 20, true, &kFlowerRpi5Readme},
    {"rpi5", "resnet50", 16, 322.258574, 20, false, &kFlowerRpi5Readme},
    {"rpi5", "mobilenet_v2_050", 16, 73.653456, 20, false, &kFlowerRpi5Readme},
    {"rpi5", "mobilenet_v2", 16, 144.351003, 20, false, &kFlowerRpi5Readme},
    {"rpi5", "mnasnet_075", 16, 116.132641, 20, true, &kFlowerRpi5Notebook},
    {"rpi5", "mnasnet_100", 16, 144.697303, 20, true, &kFlowerRpi5Notebook},
    {"jetson_nano", "resnet18", 8, 900, 1310, false, &kJetsonPlantClef},
    {"jetson_nano", "resnet18", 8, 420, 625, true, &kJetsonCatDog, 480},
};

}  // namespace

std::span<const Measurement> published_measurements() { return kMeasurements; }

double relative_error(const Measurement& m, double predicted_s) {
  const double low = predicted_s / m.step_s() - 1, high = predicted_s / m.step_high_s() - 1;
  return std::fabs(low) >= std::fabs(high) ? low : high;
}

}  // namespace edgetrain::compute
