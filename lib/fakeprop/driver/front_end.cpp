#include "fakeprop/driver/front_end.h"

#include "fakeprop/driver/front_ends/front_ends.h"
#include "fakeprop/util/error.h"

namespace fakeprop {

std::span<const FrontEnd> front_ends() {
  // A JSON FX graph first: its test (a '{') is the cheapest and the ONNX
  // test, a protobuf's first field, is the loosest.
  static const FrontEnd table[] = {fx_json_front_end(), pt2_front_end(), onnx_front_end()};
  return table;
}

const FrontEnd& front_end(ModelFormat format) {
  for (const FrontEnd& fe : front_ends())
    if (fe.format == format) return fe;
  throw Error("no front end for model format " + std::to_string(static_cast<int>(format)));
}

const FrontEnd& front_end_of(const RunResult& result) {
  for (const FrontEnd& fe : front_ends())
    if (fe.kind == result.model_kind) return fe;
  throw InputError(result.model_path + ": a run of kind '" + result.model_kind + "', which no front end makes");
}

}  // namespace fakeprop
