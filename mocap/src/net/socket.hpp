#pragma once
// POSIX sockets behind small RAII classes (IPv4): UDP for NatNet and QTM's streamed frames,
// TCP for QTM's command channel. Every wait has a timeout so receiver threads can stop; every
// failure throws MocapError naming the call, the endpoint and errno's text.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace odemocap::net {

/// An IPv4 address and port.
struct Endpoint {
  std::uint32_t address = 0; ///< network byte order
  std::uint16_t port = 0;    ///< host byte order
  std::string str() const;   ///< "a.b.c.d:port"
};
inline bool operator==(const Endpoint& a, const Endpoint& b) {
  return a.address == b.address && a.port == b.port;
}

/// `host` (dotted quad or a name) and `port` as an endpoint; throws MocapError.
Endpoint resolve(const std::string& host, int port);

/// Owns a file descriptor.
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  int release();
  bool valid() const { return fd_ >= 0; }

private:
  int fd_ = -1;
};

/// `text` as an IPv4 address (network byte order): a dotted quad; otherwise throws MocapError
/// naming `what`.
std::uint32_t ipv4_address(const std::string& text, const std::string& what);

/// Whether an address (network byte order) is in 127.0.0.0/8.
bool is_loopback(std::uint32_t address);

/// The IPv4 address (network byte order) of the interface the system sends datagrams to `to`
/// from; 0 when it has no route there.
std::uint32_t route_source(const Endpoint& to);

/// Waits until `fd` is readable, at most `timeout` s; false on timeout.
bool wait_readable(int fd, double timeout);

class UdpSocket {
public:
  /// Bound to `port` on every interface (0: a free port). `reuse` lets several receivers share
  /// a multicast port.
  explicit UdpSocket(int port = 0, bool reuse = false);
  int fd() const { return fd_.get(); }
  int local_port() const;
  /// Receives datagrams sent to `group` (e.g. NatNet's 239.255.42.99) on this socket's port,
  /// on the interface with the IPv4 address `interface_address` ("": the one the system routes
  /// the group through).
  void join_multicast(const std::string& group, const std::string& interface_address = "");
  /// Multicast datagrams sent from here reach receivers on this machine too.
  void set_multicast_loopback(bool on);
  /// Multicast datagrams sent from here leave by the interface with this IPv4 address (else by
  /// the one the system routes the group through).
  void set_multicast_interface(std::uint32_t address);
  void send_to(const std::uint8_t* data, std::size_t size, const Endpoint& to);
  /// One datagram into `buffer` (truncated to `capacity`), waiting at most `timeout` s; 0 on
  /// timeout. `from` (optional) receives the sender.
  std::size_t receive(std::uint8_t* buffer, std::size_t capacity, double timeout,
                      Endpoint* from = nullptr);

private:
  Fd fd_;
};

class TcpStream {
public:
  TcpStream() = default;
  explicit TcpStream(Fd fd) : fd_(std::move(fd)) {}
  /// Connects to `to`, waiting at most `timeout` s.
  static TcpStream connect(const Endpoint& to, double timeout);
  int fd() const { return fd_.get(); }
  bool valid() const { return fd_.valid(); }
  Endpoint peer() const;
  void send_all(const std::uint8_t* data, std::size_t size);
  /// Reads exactly `size` bytes; false when nothing arrived within `timeout` s (before the first
  /// byte). Throws MocapError when the peer closes or stalls mid-message.
  bool receive_exact(std::uint8_t* data, std::size_t size, double timeout);
  void close() { fd_ = Fd(); }

private:
  Fd fd_;
};

class TcpListener {
public:
  /// Listens on `port` (0: a free port) on every interface.
  explicit TcpListener(int port);
  int local_port() const;
  /// A connection, or an invalid stream when none came within `timeout` s.
  TcpStream accept(double timeout);

private:
  Fd fd_;
};

} // namespace odemocap::net
