// The typed field of each schema row: how a row names the field of the typed Scenario it fills
// (member pointers composed into a Place, and a conversion from the resolved JSON value to the
// member's type), and the walk that fills a Scenario from a resolved document. So each default
// is declared once, in its row: the typed structs (scenario.hpp) repeat none.
//
// A key absent from the resolved document (it does not apply, or its section is off) gives its
// field the row's unconditional default when the row has one (a value, or null: empty); else the
// field keeps its value-initialised state (zero, empty, or the defaults of a struct another
// module owns, such as compress::Config).
#pragma once

#include <any>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "scenario/scenario.hpp"
#include "scenario/schema.hpp"

namespace edgetrain::scenario {

namespace fill_detail {

template <class T>
struct is_optional : std::false_type {};
template <class U>
struct is_optional<std::optional<U>> : std::true_type {};
template <class U>
struct is_optional<util::Boxed<U>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class U, class A>
struct is_vector<std::vector<U, A>> : std::true_type {};
template <class M>
struct member_of;
template <class C, class M>
struct member_of<M C::*> {
  using owner = C;
};

// A struct behind an optional is a section's: on (the row's value is an object) or off (null).
template <class T>
inline constexpr bool is_struct = std::is_class_v<T> && !std::is_same_v<T, std::string> &&
                                  !std::is_same_v<T, std::filesystem::path> && !is_vector<T>::value;

// The member reached from `obj` along the member pointers, crossing an optional only when it
// holds a value; null when it does not, or when `obj` is null.
template <class C, class M, class... Rest>
auto follow(C* obj, M C::*member, Rest... rest) {
  M* m = obj ? &(obj->*member) : nullptr;
  if constexpr (sizeof...(Rest) == 0) {
    return m;
  } else if constexpr (is_optional<M>::value) {
    using U = typename M::value_type;
    return follow(m && m->has_value() ? &**m : static_cast<U*>(nullptr), rest...);
  } else {
    return follow(m, rest...);
  }
}

}  // namespace fill_detail

// Where a T lies in a Root: place(&Scenario::compression, &CompressionSpec::uplink) is a
// Place<Scenario, CompressorSpec>. get() is null when the way crosses an empty optional (a
// section that is off).
template <class Root, class T>
struct Place {
  std::function<T*(Root&)> get;
};

template <class First, class... Rest>
  requires std::is_member_object_pointer_v<First>
auto place(First first, Rest... rest) {
  using Root = typename fill_detail::member_of<First>::owner;
  using T = std::remove_pointer_t<decltype(fill_detail::follow(static_cast<Root*>(nullptr), first, rest...))>;
  return Place<Root, T>{[=](Root& root) { return fill_detail::follow(&root, first, rest...); }};
}

template <class Root, class C, class... Path>
auto place(const Place<Root, C>& at, Path... path) {
  if constexpr (sizeof...(Path) == 0) {
    return at;
  } else {
    using T = std::remove_pointer_t<decltype(fill_detail::follow(static_cast<C*>(nullptr), path...))>;
    return Place<Root, T>{[at, path...](Root& root) { return fill_detail::follow(at.get(root), path...); }};
  }
}

// The resolved value `v` into `field`: null is the type's empty value; an optional struct is a
// section, emplaced when `v` is an object (its own rows fill it) and reset when null.
template <class T>
void assign(T& field, const nlohmann::json& v) {
  if constexpr (fill_detail::is_optional<T>::value) {
    using U = typename T::value_type;
    if (v.is_null()) {
      field.reset();
    } else if constexpr (fill_detail::is_struct<U>) {
      if (!field) field.emplace();
    } else {
      U value{};
      assign(value, v);
      field = std::move(value);
    }
  } else if constexpr (std::is_same_v<T, std::filesystem::path>) {
    field = v.is_null() ? T{} : T(v.get<std::string>());
  } else {
    field = v.is_null() ? T{} : v.get<T>();
  }
}

namespace fill_detail {

template <class Root, class T, class Set>
Fill writer(Place<Root, T> at, Set set) {
  Fill f;
  f.write = [at, set](const std::any& root, const nlohmann::json& v) {
    if (T* field = at.get(*std::any_cast<Root*>(root))) set(*field, v);
  };
  return f;
}

template <class Root, class E>
Fill entries(Place<Root, std::vector<E>> at) {
  Fill f;
  f.entries = [at](const std::any& root, size_t n) {
    std::vector<std::any> out;
    if (std::vector<E>* list = at.get(*std::any_cast<Root*>(root))) {
      list->assign(n, E{});
      for (E& e : *list) out.emplace_back(&e);
    }
    return out;
  };
  return f;
}

}  // namespace fill_detail

template <class... Path>
KeySpec& KeySpec::fills(Path... path) {
  fill = fill_detail::writer(place(path...), [](auto& field, const nlohmann::json& v) { assign(field, v); });
  return *this;
}

template <class Convert, class... Path>
KeySpec& KeySpec::fills_by(Convert convert, Path... path) {
  fill = fill_detail::writer(place(path...), [convert](auto& field, const nlohmann::json& v) { field = convert(v); });
  return *this;
}

template <class... Path>
KeySpec& KeySpec::fills_entries(Path... path) {
  fill = fill_detail::entries(place(path...));
  return *this;
}

template <class Root, class Write>
KeySpec& KeySpec::fills_root(Write write) {
  fill.write = [write](const std::any& root, const nlohmann::json& v) { write(*std::any_cast<Root*>(root), v); };
  return *this;
}

// Rows declared on a T (their fills start at a T) made to fill the T at `at` in a Root (inside
// it when it is an optional: a section that is on): the compressor rows declared once fill the
// uplink's, the downlink's and the sites' compressor.
template <class Root, class T>
void place_rows(std::vector<KeySpec>& rows, const Place<Root, T>& at) {
  auto target = [at](const std::any& root) {
    T* t = at.get(*std::any_cast<Root*>(root));
    if constexpr (fill_detail::is_optional<T>::value) {
      return t && t->has_value() ? &**t : static_cast<typename T::value_type*>(nullptr);
    } else {
      return t;
    }
  };
  for (KeySpec& r : rows) {
    if (r.fill.write) {
      r.fill.write = [inner = r.fill.write, target](const std::any& root, const nlohmann::json& v) {
        if (auto* t = target(root)) inner(std::any(t), v);
      };
    }
    if (r.fill.entries) {
      r.fill.entries = [inner = r.fill.entries, target](const std::any& root, size_t n) {
        auto* t = target(root);
        return t ? inner(std::any(t), n) : std::vector<std::any>{};
      };
    }
  }
}

// The typed scenario of a resolved document (validate.hpp): each row's value written into its
// field, in table order (so a row may read fields filled before it: the sites read the
// devices), and the document itself kept as `resolved`.
Scenario typed_scenario(const nlohmann::json& resolved);

}  // namespace edgetrain::scenario
