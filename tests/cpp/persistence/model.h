// Test helper: a Keel object's type and contents in plain containers (order-independent where
// Redis's type is), so two objects, or an object and a fixture's contents.jsonl line, compare
// with ==.
#pragma once
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "types/hash_type.h"
#include "types/list_type.h"
#include "types/object.h"
#include "types/set_type.h"
#include "types/zset_type.h"

namespace keel {

struct Model {
  Type type = Type::kString;
  std::string str;                                       // string
  std::vector<std::string> items;                        // list in order; set sorted
  std::vector<std::pair<std::string, double>> zset;      // ascending (score, member)
  std::vector<std::pair<std::string, std::string>> hash; // sorted by field
  bool operator==(const Model& o) const {
    return type == o.type && str == o.str && items == o.items && hash == o.hash &&
           zset.size() == o.zset.size() &&
           std::equal(zset.begin(), zset.end(), o.zset.begin(), [](const auto& a, const auto& b) {
             return a.first == b.first && (a.second == b.second || (a.second != a.second && b.second != b.second));
           });
  }
};

inline Model model_of(const Object& o) {
  Model m;
  m.type = o.type();
  switch (o.type()) {
    case Type::kString: {
      char scratch[kInt64BufSize];
      m.str = std::string(o.string_view(scratch));
      break;
    }
    case Type::kList:
      ListType::range(o, 0, ListType::size(o),
                      [](void* ctx, const LpEntry& e) {
                        char buf[kLpIntBufSize];
                        static_cast<Model*>(ctx)->items.emplace_back(e.str(buf));
                      },
                      &m);
      break;
    case Type::kSet:
      SetType::for_each(o, [&](const SetElem& e) {
        char buf[kInt64BufSize];
        m.items.emplace_back(e.text(buf));
        return true;
      });
      std::sort(m.items.begin(), m.items.end());
      break;
    case Type::kZset:
      ZsetType::for_each(o, [&](std::string_view member, double score) {
        m.zset.emplace_back(std::string(member), score);
      });
      break;
    case Type::kHash:
      HashType::for_each(o, [&](std::string_view f, std::string_view v) {
        m.hash.emplace_back(std::string(f), std::string(v));
      });
      std::sort(m.hash.begin(), m.hash.end());
      break;
    case Type::kStream: break;
  }
  return m;
}

}  // namespace keel
