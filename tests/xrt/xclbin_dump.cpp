// Prints what XRT's own reader (xrt::xclbin, libxrt_coreutil) finds in an
// xclbin, one fact a line, fields separated by tabs. The fwview tests
// compare these lines with fwview's --json.
//
//   uuid     <8-4-4-4-12>
//   xsa      <platform VBNV>
//   section  <kind> <name> <offset> <size>
//   ip       <name> <base address>
//   kernel   <name>
//   cu       <kernel name> <cu name>
//   mem      <index> <tag> <type> <used> <size KiB> <base address>

#include <xrt/experimental/xrt_xclbin.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

static std::string fixed(const char* p, size_t n) {
  return std::string(p, strnlen(p, n));
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE.xclbin\n", argv[0]);
    return 2;
  }
  try {
    xrt::xclbin x{std::string(argv[1])};
    std::printf("uuid\t%s\n", x.get_uuid().to_string().c_str());
    std::printf("xsa\t%s\n", x.get_xsa_name().c_str());
    const axlf* top = x.get_axlf();
    for (uint32_t i = 0; i < top->m_header.m_numSections; ++i) {
      const axlf_section_header& s = top->m_sections[i];
      std::printf("section\t%u\t%s\t%llu\t%llu\n", s.m_sectionKind,
                  fixed(s.m_sectionName, sizeof s.m_sectionName).c_str(),
                  (unsigned long long)s.m_sectionOffset,
                  (unsigned long long)s.m_sectionSize);
    }
    for (const auto& ip : x.get_ips())
      std::printf("ip\t%s\t%llu\n", ip.get_name().c_str(),
                  (unsigned long long)ip.get_base_address());
    for (const auto& k : x.get_kernels()) {
      std::printf("kernel\t%s\n", k.get_name().c_str());
      for (const auto& cu : k.get_cus())
        std::printf("cu\t%s\t%s\n", k.get_name().c_str(), cu.get_name().c_str());
    }
    for (const auto& m : x.get_mems())
      std::printf("mem\t%d\t%s\t%u\t%u\t%llu\t%llu\n", m.get_index(),
                  m.get_tag().c_str(), (unsigned)m.get_type(),
                  (unsigned)m.get_used(), (unsigned long long)m.get_size_kb(),
                  (unsigned long long)m.get_base_address());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xrt: %s\n", e.what());
    return 1;
  }
  return 0;
}
