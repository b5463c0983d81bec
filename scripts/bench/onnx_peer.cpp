// fakeprop_onnx_peer: ONNX's own C++ shape inference (libonnx) on one model,
// the peer scripts/bench.py times fakeprop against. Loads the ModelProto with
// protobuf, runs onnx::shape_inference::InferShapes, and prints one JSON line
// with the time of each phase:
//
//   fakeprop_onnx_peer MODEL
//   {"load_ms": 812.4, "infer_ms": 95.1, "nodes": 1234, "value_info": 1200}
//
// Exit 2 when the model cannot be read or parsed, 1 when inference throws
// (the message is printed on stderr).
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <limits>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

namespace {

double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fakeprop_onnx_peer MODEL\n");
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fakeprop_onnx_peer: %s: cannot open\n", argv[1]);
    return 2;
  }
  ::onnx::ModelProto model;
  {
    google::protobuf::io::IstreamInputStream raw(&in);
    google::protobuf::io::CodedInputStream coded(&raw);
    coded.SetTotalBytesLimit(std::numeric_limits<int>::max());  // models up to 2 GB, protobuf's own limit
    if (!model.ParseFromCodedStream(&coded)) {
      std::fprintf(stderr, "fakeprop_onnx_peer: %s: not a parseable ModelProto\n", argv[1]);
      return 2;
    }
  }
  const auto t1 = std::chrono::steady_clock::now();
  try {
    // onnx.shape_inference.infer_shapes_path's defaults: no type check, lenient, no data propagation.
    ::onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/0, /*data_prop=*/false);
    ::onnx::shape_inference::InferShapes(model, ::onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fakeprop_onnx_peer: %s: inference failed: %s\n", argv[1], e.what());
    return 1;
  }
  const auto t2 = std::chrono::steady_clock::now();
  std::printf("{\"load_ms\": %.3f, \"infer_ms\": %.3f, \"nodes\": %d, \"value_info\": %d}\n", ms_between(t0, t1),
              ms_between(t1, t2), model.graph().node_size(), model.graph().value_info_size());
  return 0;
}
