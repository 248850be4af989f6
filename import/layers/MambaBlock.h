// The Mamba-1 block (RMSNorm, the selective-scan mixer, residual) as a layer of the model skeleton (import/graph/ModelGraph.h).
//
// transformers' MambaBlock / mamba_ssm's Mamba (mamba_ssm/modules/
// mamba_simple.py), in f32: in_proj(RMSNorm(h)) split into x and z, x =
// silu(causal_conv1d(x)), x_proj(x) split into (dt, B, C), dt = dt_proj(dt),
// y = selective scan(x, softplus(dt + dt_proj.bias), A = -exp(A_log), B, C)
// + D x, gated by silu(z), h + out_proj(y). The sequence form runs
// ssm.selective_scan from the carried state; the step forms
// ssm.selective_update (the batched step with its batch dim = the streams);
// both start the conv from the carried window (ssm.causal_conv1d's
// initial_states; its final_states is the new window).
#ifndef SSM_IMPORT_LAYERS_MAMBABLOCK_H
#define SSM_IMPORT_LAYERS_MAMBABLOCK_H

#include "import/MambaModel.h"
#include "import/graph/ModelGraph.h"

namespace ssm::importer::layers {

/// One block on s.h (rows, d_model), reading the weights after the layer's
/// prefix "norm.weight", "mixer.in_proj.weight" (2 d_inner, d_model) (and
/// bias), "mixer.conv1d.weight" (d_inner, 1, W) (and bias),
/// "mixer.x_proj.weight" (dt_rank + 2 N, d_inner), "mixer.dt_proj.weight"
/// and ".bias", "mixer.A_log" (d_inner, N), "mixer.D" (d_inner),
/// "mixer.out_proj.weight" (and bias), and the states "conv_state"
/// (d_inner, W - 1), "ssm_state" (d_inner, N); sets s.h and appends the two
/// new states.
void mambaBlock(graph::BlockScope &s, const MambaConfig &c);

} // namespace ssm::importer::layers

#endif // SSM_IMPORT_LAYERS_MAMBABLOCK_H
