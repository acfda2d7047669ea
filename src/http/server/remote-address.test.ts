import { describe, expect, it } from "vitest";
import { addressKey } from "./remote-address.js";

describe("addressKey", () => {
  it("keeps an IPv4 address and unwraps an IPv4-mapped one", () => {
    expect(addressKey("192.0.2.1")).toBe("192.0.2.1");
    expect(addressKey("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(addressKey("::FFFF:192.0.2.1")).toBe("192.0.2.1");
  });

  it("counts IPv6 by its /64, however the address is written", () => {
    const key = "2001:db8:0:1::/64";
    for (const address of [
      "2001:db8:0:1::1",
      "2001:0db8:0000:0001:ffff::9",
      "2001:db8::1:0:0:0:2",
      "2001:DB8:0:1:a:b:c:d",
    ]) {
      expect(addressKey(address), address).toBe(key);
    }
    expect(addressKey("2001:db8:0:2::1")).toBe("2001:db8:0:2::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressKey("64:ff9b::192.0.2.1")).toBe("64:ff9b:0:0::/64");
  });

  it("has no key for no address or something that is not an IP address", () => {
    for (const address of [
      undefined,
      "",
      "localhost",
      "1.2.3",
      "256.1.1.1",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "12345::",
    ]) {
      expect(addressKey(address), String(address)).toBeUndefined();
    }
  });
});
