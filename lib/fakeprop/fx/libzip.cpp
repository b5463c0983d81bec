#include "fakeprop/fx/libzip.h"

#include <dlfcn.h>

#include <mutex>
#include <optional>

#include "fakeprop/util/error.h"

#ifndef FAKEPROP_LIBZIP_SONAME
#define FAKEPROP_LIBZIP_SONAME "libzip.so"
#endif

namespace fakeprop::fx {

namespace {

// The loaded table, or why loading failed.
struct Loaded {
  std::optional<LibZip> api;
  std::string error;
};

template <class Fn>
bool bind(void* lib, const char* name, Fn& fn, std::string& error) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (!fn && error.empty()) error = std::string(FAKEPROP_LIBZIP_SONAME) + " has no " + name;
  return fn != nullptr;
}

Loaded load() {
  Loaded out;
  void* lib = dlopen(FAKEPROP_LIBZIP_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    out.error = why ? why : "cannot load " FAKEPROP_LIBZIP_SONAME;
    return out;
  }
  LibZip z{};
  bool ok = true;
  ok &= bind(lib, "zip_open", z.open, out.error);
  ok &= bind(lib, "zip_open_from_source", z.open_from_source, out.error);
  ok &= bind(lib, "zip_discard", z.discard, out.error);
  ok &= bind(lib, "zip_get_num_entries", z.get_num_entries, out.error);
  ok &= bind(lib, "zip_get_name", z.get_name, out.error);
  ok &= bind(lib, "zip_stat_init", z.stat_init, out.error);
  ok &= bind(lib, "zip_stat_index", z.stat_index, out.error);
  ok &= bind(lib, "zip_fopen_index", z.fopen_index, out.error);
  ok &= bind(lib, "zip_fread", z.fread, out.error);
  ok &= bind(lib, "zip_fclose", z.fclose, out.error);
  ok &= bind(lib, "zip_strerror", z.strerror, out.error);
  ok &= bind(lib, "zip_file_strerror", z.file_strerror, out.error);
  ok &= bind(lib, "zip_source_buffer_create", z.source_buffer_create, out.error);
  ok &= bind(lib, "zip_source_free", z.source_free, out.error);
  ok &= bind(lib, "zip_error_init", z.error_init, out.error);
  ok &= bind(lib, "zip_error_init_with_code", z.error_init_with_code, out.error);
  ok &= bind(lib, "zip_error_strerror", z.error_strerror, out.error);
  ok &= bind(lib, "zip_error_fini", z.error_fini, out.error);
  if (ok) out.api = z;  // the library stays loaded for the process
  return out;
}

}  // namespace

const LibZip& libzip(const std::string& path) {
  static const Loaded loaded = load();
  if (!loaded.api) throw InputError(path + ": reading a .pt2 archive needs libzip: " + loaded.error);
  return *loaded.api;
}

}  // namespace fakeprop::fx
