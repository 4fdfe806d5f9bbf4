// Precompiled header for the LibTorch-facing translation units of `learn`.
#pragma once
#include <torch/torch.h>
