// The Mamba-2 block (RMSNorm, the SSD mixer with its gated norm, residual) as a layer of the model skeleton (import/graph/ModelGraph.h).
//
// The computation is import/Mamba2Model.h's: mamba_ssm's Mamba2
// (mamba_ssm/modules/mamba2.py) and transformers' Mamba2Mixer, in f32. The
// sequence form runs ssm.ssd_scan (chunked) from the carried state; the
// step forms ssm.selective_update with heads (the batched step with its
// batch dim = the streams). Granite 4.0-H and Falcon-H1 reuse it.
#ifndef SSM_IMPORT_LAYERS_MAMBA2BLOCK_H
#define SSM_IMPORT_LAYERS_MAMBA2BLOCK_H

#include "import/Mamba2Model.h"
#include "import/graph/ModelGraph.h"

namespace ssm::importer::layers {

/// One block on s.h (rows, d_model), reading the weights after the layer's
/// prefix "norm.weight", "mixer.in_proj.weight" (and bias), "mixer.conv1d.
/// weight" (conv_dim, 1, W) (and bias), "mixer.dt_bias", "mixer.A_log",
/// "mixer.D" (H), "mixer.norm.weight" (d_inner), "mixer.out_proj.weight"
/// (and bias), and the states "conv_state" (conv_dim, W - 1), "ssm_state"
/// (H, P, N); sets s.h to h + out_proj(...) and appends the two new states.
void mamba2Block(graph::BlockScope &s, const Mamba2Config &c);

/// The mixer's weights after the layer's prefix + `m`, in argument order:
/// in_proj (weight, bias if use_bias), conv1d (weight (conv_dim, 1, W), bias
/// if use_conv_bias), dt_bias, A_log, D (H), the gated norm's weight
/// (d_inner, unless gatedNorm is false), out_proj (weight, bias if use_bias).
std::vector<graph::TensorDecl> mamba2MixerParams(const Mamba2Config &c, const std::string &m);

/// The mixer alone on xn (rows, d_model), already normed: its weights after
/// the layer's prefix + `m` ("mixer." in Mamba-2, "mamba." in Granite 4.0-H),
/// the same states; returns out_proj(...) (rows, d_model), added to *addTo
/// when given. The gated norm runs over c.normGroups groups (0: G).
TValue mamba2Mixer(graph::BlockScope &s, const Mamba2Config &c, const TValue &xn,
                   const std::string &m, const TValue *addTo = nullptr);

} // namespace ssm::importer::layers

#endif // SSM_IMPORT_LAYERS_MAMBA2BLOCK_H
