// libzip, loaded when the first .pt2 archive is read instead of linked:
// a linked libzip (and its libcrypto) is loaded and relocated at the start
// of every run, ONNX and JSON graphs included.
#pragma once
#include <zip.h>

#include <string>

namespace fakeprop::fx {

// The libzip functions the .pt2 loader calls, by their libzip names without
// the zip_ prefix.
struct LibZip {
  decltype(&::zip_open) open;
  decltype(&::zip_open_from_source) open_from_source;
  decltype(&::zip_discard) discard;
  decltype(&::zip_get_num_entries) get_num_entries;
  decltype(&::zip_get_name) get_name;
  decltype(&::zip_stat_init) stat_init;
  decltype(&::zip_stat_index) stat_index;
  decltype(&::zip_fopen_index) fopen_index;
  decltype(&::zip_fread) fread;
  decltype(&::zip_fclose) fclose;
  decltype(&::zip_strerror) strerror;
  decltype(&::zip_file_strerror) file_strerror;
  decltype(&::zip_source_buffer_create) source_buffer_create;
  decltype(&::zip_source_free) source_free;
  decltype(&::zip_error_init) error_init;
  decltype(&::zip_error_init_with_code) error_init_with_code;
  decltype(&::zip_error_strerror) error_strerror;
  decltype(&::zip_error_fini) error_fini;
};

// The library, loaded once; an InputError naming `path` (the archive that
// needed it) when it cannot be loaded.
const LibZip& libzip(const std::string& path);

}  // namespace fakeprop::fx
