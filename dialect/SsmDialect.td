// The `ssm` dialect definition and its enumerated attributes.
#ifndef SSM_DIALECT_TD
#define SSM_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"
include "dialect/SsmInterfaces.td"

def SSM_Dialect : Dialect {
  let name = "ssm";
  let cppNamespace = "::ssm";
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let summary = "Operators of state space models (S4, Mamba, Mamba-2, RWKV) and of the hybrids' attention.";
  let description = [{
    The `ssm` dialect holds the sequence-mixing operators of state space models
    with value semantics on ranked f32 tensors: discretization, the affine
    (linear recurrence) scan, the Mamba-1 selective scan and its one-step
    decode form, the S4/S4D convolution kernel and causal long convolution,
    Mamba's short causal depthwise convolution, and the Mamba-2 SSD /
    linear-attention outer-product scan.

    Everything else in a model (linear layers, norms, activations, embeddings)
    uses upstream dialects (`linalg`, `arith`, `math`, `tensor`, `func`).
    The semantics of every op are defined by the reference interpreter
    (`reference/`), which follows the public reference implementations named
    in each op's description.
  }];
}

// Every ssm op declares ScheduledOpInterface (dialect/SsmInterfaces.td) and
// defines its methods in dialect/OpScheduling.cpp.
class SSM_Op<string mnemonic, list<Trait> traits = []>
    : Op<SSM_Dialect, mnemonic,
         !listconcat(traits, [DeclareOpInterfaceMethods<SSM_ScheduledOpInterface>])>;

// How a continuous (A, B) pair with step Delta becomes a discrete one.
def SSM_Discretization : I32EnumAttr<"Discretization",
    "discretization method (zoh, bilinear, euler)", [
      I32EnumAttrCase<"zoh", 0>,
      I32EnumAttrCase<"bilinear", 1>,
      I32EnumAttrCase<"euler", 2>]> {
  let cppNamespace = "::ssm";
}

// Which dimension is contiguous for sequence tensors.
def SSM_Layout : I32EnumAttr<"Layout",
    "sequence layout: channel_major (batch, dim, L) as in mamba_ssm, "
    "time_major (batch, L, dim) as in ggml and Mamba-2", [
      I32EnumAttrCase<"channel_major", 0>,
      I32EnumAttrCase<"time_major", 1>]> {
  let cppNamespace = "::ssm";
}

def SSM_Activation : I32EnumAttr<"Activation",
    "activation applied to an op's output", [
      I32EnumAttrCase<"identity", 0>,
      I32EnumAttrCase<"silu", 1>]> {
  let cppNamespace = "::ssm";
}

def SSM_ConvAlgorithm : I32EnumAttr<"ConvAlgorithm",
    "algorithm of a long causal convolution", [
      I32EnumAttrCase<"direct", 0>,
      I32EnumAttrCase<"fft", 1>,
      I32EnumAttrCase<"scan", 2>]> {
  let cppNamespace = "::ssm";
}

// Which channels ssm.rope rotates together.
def SSM_RopeStyle : I32EnumAttr<"RopeStyle",
    "pairing of rotary position embedding: normal rotates (2i, 2i+1) "
    "(GPT-J, llama.cpp's LLAMA_ROPE_TYPE_NORM), neox rotates (i, i + d/2) "
    "(GPT-NeoX, transformers' rotate_half)", [
      I32EnumAttrCase<"normal", 0>,
      I32EnumAttrCase<"neox", 1>]> {
  let cppNamespace = "::ssm";
}

#endif // SSM_DIALECT_TD
