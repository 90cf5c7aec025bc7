// Stream objects: creation and the CollectionOps hooks (stream_type.h).
#include "types/stream_type.h"

namespace keel {
namespace {

void free_stream(Encoding, void* p) { delete static_cast<Stream*>(p); }
void* copy_stream(Encoding, const void* p) { return static_cast<const Stream*>(p)->deep_copy(); }
int64_t stream_length(Encoding, const void* p) {
  return static_cast<int64_t>(static_cast<const Stream*>(p)->length);
}
size_t stream_memory_usage(Encoding, const void* p, size_t samples) {
  return static_cast<const Stream*>(p)->memory_usage(samples);
}

const CollectionOps kStreamOps = {
    .free_value = free_stream,
    .copy_value = copy_stream,
    .length = stream_length,
    .memory_usage = stream_memory_usage,
};

struct RegisterStreamOps {
  RegisterStreamOps() { register_collection_ops(Type::kStream, &kStreamOps); }
} g_register_stream_ops;

}  // namespace

Object* StreamType::create(std::string_view key, Stream* s) {
  return Object::create_collection(key, Type::kStream, Encoding::kStream, s ? s : new Stream);
}

}  // namespace keel
