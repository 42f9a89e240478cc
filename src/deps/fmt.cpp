// {fmt}'s compiled part, built from Debian's libfmt-dev headers into rigport itself rather than
// linked from libfmt.so: a shared fmt pulls the shared C++ runtime into the CLI, whose loading and
// symbol binding were a third of a `rigport` process's start (BENCHMARKS.md, 2026-11-26). The
// definitions are format-inl.h's; the instantiations are the templates format.h declares for the
// library to provide.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;

}  // namespace detail
FMT_END_NAMESPACE
