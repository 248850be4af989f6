// Registration of the `ssm` dialect and the definitions of its enums.
#include "dialect/SsmDialect.h"
#include "dialect/SsmOps.h"

using namespace mlir;

#include "dialect/SsmDialect.cpp.inc"
#include "dialect/SsmEnums.cpp.inc"

void ssm::SSMDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/SsmOps.cpp.inc"
      >();
}
