#include "fakeprop/driver/real_inputs.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <sstream>

#include "fakeprop/onnx/model.h"
#include "fakeprop/util/error.h"
#include "fakeprop/util/input_file.h"

namespace fakeprop {

namespace {

std::string read_file(const std::string& path, const std::string& option) {
  try {
    return read_input_file(path);
  } catch (const InputError& e) {
    throw InputError(option + " " + e.what());
  }
}

// The value of `key` in the header dict: "'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }".
std::string header_item(std::string_view header, std::string_view key, const std::string& file) {
  const std::string quoted = "'" + std::string(key) + "'";
  const size_t at = header.find(quoted);
  const size_t colon = at == std::string_view::npos ? at : header.find(':', at + quoted.size());
  if (colon == std::string_view::npos) throw InputError(file + ": not a .npy file (no '" + std::string(key) + "' in its header)");
  size_t start = header.find_first_not_of(' ', colon + 1);
  size_t end = start;
  if (start == std::string_view::npos) throw InputError(file + ": not a .npy file (truncated header)");
  if (header[start] == '(') {
    end = header.find(')', start);
  } else if (header[start] == '\'') {
    end = header.find('\'', start + 1);
  } else {
    end = header.find_first_of(",}", start);
    if (end != std::string_view::npos) --end;
  }
  if (end == std::string_view::npos) throw InputError(file + ": not a .npy file (truncated header)");
  return std::string(header.substr(start, end - start + 1));
}

struct NpyType {
  DType dtype;
  size_t width;
  enum { Float, Signed, Unsigned, Bool } kind;
};

std::optional<NpyType> npy_type(const std::string& descr) {
  static const std::pair<const char*, NpyType> kTypes[] = {
      {"f2", {DType::Float16, 2, NpyType::Float}}, {"f4", {DType::Float32, 4, NpyType::Float}},
      {"f8", {DType::Float64, 8, NpyType::Float}}, {"i1", {DType::Int8, 1, NpyType::Signed}},
      {"i2", {DType::Int16, 2, NpyType::Signed}},  {"i4", {DType::Int32, 4, NpyType::Signed}},
      {"i8", {DType::Int64, 8, NpyType::Signed}},  {"u1", {DType::UInt8, 1, NpyType::Unsigned}},
      {"u2", {DType::UInt16, 2, NpyType::Unsigned}}, {"u4", {DType::UInt32, 4, NpyType::Unsigned}},
      {"u8", {DType::UInt64, 8, NpyType::Unsigned}}, {"b1", {DType::Bool, 1, NpyType::Bool}},
  };
  // '<f4' little-endian, '|u1' no byte order; a big-endian '>f4' is not read.
  if (descr.size() != 5 || descr[0] != '\'' || descr[4] != '\'' || (descr[1] != '<' && descr[1] != '|')) return std::nullopt;
  const std::string code = descr.substr(2, 2);
  for (const auto& [name, type] : kTypes)
    if (code == name && (descr[1] == '<' || type.width == 1)) return type;
  return std::nullopt;
}

double half_to_double(uint16_t h) {
  const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exp == 0) return sign * std::ldexp(mant, -24);
  if (exp == 31) return mant ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  return sign * std::ldexp(mant + 1024, exp - 25);
}

uint64_t load_le(const unsigned char* p, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

}  // namespace

RealTensor parse_npy(std::string_view bytes, const std::string& file, int64_t max_elements) {
  static constexpr std::string_view kMagic = "\x93NUMPY";
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic) throw InputError(file + ": not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(bytes[6]);
  const size_t len_width = major == 1 ? 2 : 4;
  if (major < 1 || major > 3 || bytes.size() < 8 + len_width)
    throw InputError(file + ": unsupported .npy version " + std::to_string(major));
  const size_t header_len = load_le(reinterpret_cast<const unsigned char*>(bytes.data()) + 8, len_width);
  const size_t data_at = 8 + len_width + header_len;
  if (data_at > bytes.size()) throw InputError(file + ": not a .npy file (truncated header)");
  const std::string_view header = bytes.substr(8 + len_width, header_len);
  const std::string descr = header_item(header, "descr", file);
  const std::optional<NpyType> type = npy_type(descr);
  if (!type) throw InputError(file + ": .npy dtype " + descr + " is not supported (little-endian numbers and bool are)");
  const bool fortran = header_item(header, "fortran_order", file) == "True";
  const std::string shape_text = header_item(header, "shape", file);
  RealTensor t;
  t.file = file;
  t.dtype = type->dtype;
  t.numel = 1;
  for (size_t i = 1; i + 1 < shape_text.size();) {
    const size_t end = std::min(shape_text.find(',', i), shape_text.size() - 1);
    std::string item = shape_text.substr(i, end - i);
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    if (!item.empty()) {
      if (item.find_first_not_of("0123456789") != std::string::npos || item.size() > 15)
        throw InputError(file + ": .npy shape " + shape_text + " is malformed");
      t.sizes.push_back(std::stoll(item));
      const int64_t d = t.sizes.back();
      if (d != 0 && t.numel > (int64_t(1) << 48) / d) throw InputError(file + ": .npy shape " + shape_text + " is too large");
      t.numel *= d;
    }
    i = end + 1;
  }
  const size_t need = static_cast<size_t>(t.numel) * type->width;
  if (bytes.size() - data_at < need)
    throw InputError(file + ": .npy data is truncated (" + std::to_string(bytes.size() - data_at) + " bytes, " +
                     std::to_string(need) + " needed)");
  if (t.numel > max_elements) return t;
  // Row-major order of the elements: a Fortran-order file stores dim 0 fastest.
  std::vector<int64_t> fortran_strides(t.sizes.size(), 1);
  for (size_t d = 1; d < t.sizes.size(); ++d) fortran_strides[d] = fortran_strides[d - 1] * t.sizes[d - 1];
  KnownData& data = t.elements.emplace();
  data.is_float = type->kind == NpyType::Float;
  const auto* base = reinterpret_cast<const unsigned char*>(bytes.data()) + data_at;
  std::vector<int64_t> index(t.sizes.size(), 0);
  for (int64_t n = 0; n < t.numel; ++n) {
    int64_t at = n;
    if (fortran) {
      at = 0;
      for (size_t d = 0; d < index.size(); ++d) at += index[d] * fortran_strides[d];
      for (size_t d = index.size(); d-- > 0;)
        if (++index[d] < t.sizes[d]) break;
        else index[d] = 0;
    }
    const uint64_t raw = load_le(base + at * type->width, type->width);
    switch (type->kind) {
      case NpyType::Float:
        data.floats.push_back(type->width == 2   ? half_to_double(static_cast<uint16_t>(raw))
                              : type->width == 4 ? double(std::bit_cast<float>(static_cast<uint32_t>(raw)))
                                                 : std::bit_cast<double>(raw));
        break;
      case NpyType::Signed: {
        const int shift = 64 - 8 * static_cast<int>(type->width);
        data.ints.emplace_back(static_cast<int64_t>(raw << shift) >> shift);
        break;
      }
      case NpyType::Unsigned:
        if (raw > uint64_t(std::numeric_limits<int64_t>::max()))
          throw InputError(file + ": element " + std::to_string(n) + " does not fit an int64");
        data.ints.emplace_back(static_cast<int64_t>(raw));
        break;
      case NpyType::Bool: data.ints.emplace_back(raw != 0); break;
    }
  }
  return t;
}

std::map<std::string, RealTensor> read_real_inputs(const std::vector<std::string>& specs,
                                                   const std::vector<std::pair<std::string, std::string>>& arrays,
                                                   int64_t max_elements) {
  std::map<std::string, RealTensor> out;
  auto add = [&out](std::string name, RealTensor t, const std::string& spec) {
    if (name.empty())
      throw InputError("--real-input " + spec + ": the tensor has no name; write NAME=" + t.file);
    if (out.count(name)) throw InputError("--real-input " + spec + ": input '" + name + "' is given twice");
    t.name = name;
    out.emplace(std::move(name), std::move(t));
  };
  auto read_one = [max_elements](const std::string& path, const std::string& spec) {
    if (path.ends_with(".npy")) return parse_npy(read_file(path, "--real-input"), path, max_elements);
    if (path.ends_with(".pb")) return onnx::read_tensor_file(path, max_elements);
    throw InputError("--real-input " + spec + ": expected a .pb (TensorProto) or .npy file, or a test data directory");
  };
  for (const std::string& spec : specs) {
    const size_t eq = spec.find('=');
    const bool named = eq != std::string::npos && eq > 0 && !std::filesystem::exists(spec);
    const std::string name = named ? spec.substr(0, eq) : "";
    const std::string path = named ? spec.substr(eq + 1) : spec;
    std::error_code ec;
    if (!named && std::filesystem::is_directory(path, ec)) {
      std::vector<std::string> files;
      for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
        const std::string f = entry.path().filename().string();
        if (f.starts_with("input_") && f.ends_with(".pb")) files.push_back(f);
      }
      if (files.empty()) throw InputError("--real-input " + spec + ": the directory holds no input_<N>.pb files");
      std::sort(files.begin(), files.end());
      for (const std::string& f : files) {
        // Named by the directory, not by the user: read below it, no links followed.
        const InputFile file = InputFile::open_beneath(path, f);
        RealTensor t = onnx::parse_tensor_proto(file.read_all(), file.path(), max_elements);
        const std::string own = t.name;
        add(own, std::move(t), spec);
      }
      continue;
    }
    RealTensor t = read_one(path, spec);
    const std::string own = t.name;
    add(named ? name : own, std::move(t), spec);
  }
  for (const auto& [name, bytes] : arrays) add(name, parse_npy(bytes, "real input '" + name + "'", max_elements), name);
  return out;
}

}  // namespace fakeprop
