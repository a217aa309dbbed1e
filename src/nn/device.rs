//! Where the network runs and in which number format: the CPU by default, a CUDA device when
//! asked for and present; float32 by default, bfloat16 on the CPU, float16 or bfloat16 on CUDA,
//! or `auto`: the fastest of them that the machine computes natively;
//! and [`on_fresh_thread`], where LibTorch work that should leave no OpenMP team behind runs.

use std::fmt;
use std::str::FromStr;
use std::thread;

use serde::{Deserialize, Serialize};
use tch::{Device, Kind};

/// A device as asked for in a config file or on the command line: `cpu`, `cuda`, `cuda:N`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum DeviceChoice {
    /// The CPU.
    #[default]
    Cpu,
    /// The CUDA device with this index.
    Cuda(usize),
}

/// Why a device or precision cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    #[error("'{0}' is not a device (expected cpu, cuda or cuda:N)")]
    UnknownDevice(String),
    #[error("'{0}' is not a precision (expected f32, bf16, f16 or auto)")]
    UnknownPrecision(String),
    #[error("CUDA device {index} was asked for but this machine (or this LibTorch build) has no CUDA device")]
    NoCuda { index: usize },
    #[error("CUDA device {index} was asked for but only {count} CUDA device(s) exist")]
    NoSuchCuda { index: usize, count: usize },
    #[error("{precision} is not supported on {device}; use f32 or bf16 on the CPU, f32, f16 or bf16 on CUDA")]
    Unsupported { precision: Precision, device: DeviceChoice },
}

impl DeviceChoice {
    /// The tch device, checking that it exists on this machine.
    pub fn resolve(self) -> Result<Device, DeviceError> {
        match self {
            DeviceChoice::Cpu => Ok(Device::Cpu),
            DeviceChoice::Cuda(index) => {
                let count = if tch::Cuda::is_available() { tch::Cuda::device_count().max(0) as usize } else { 0 };
                match count {
                    0 => Err(DeviceError::NoCuda { index }),
                    _ if index >= count => Err(DeviceError::NoSuchCuda { index, count }),
                    _ => Ok(Device::Cuda(index)),
                }
            }
        }
    }
}

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceChoice::Cpu => f.write_str("cpu"),
            DeviceChoice::Cuda(i) => write!(f, "cuda:{i}"),
        }
    }
}

impl FromStr for DeviceChoice {
    type Err = DeviceError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "cpu" => Ok(DeviceChoice::Cpu),
            "cuda" => Ok(DeviceChoice::Cuda(0)),
            _ => text
                .strip_prefix("cuda:")
                .and_then(|i| i.parse().ok())
                .map(DeviceChoice::Cuda)
                .ok_or_else(|| DeviceError::UnknownDevice(text.to_string())),
        }
    }
}

impl TryFrom<String> for DeviceChoice {
    type Error = DeviceError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<DeviceChoice> for String {
    fn from(d: DeviceChoice) -> String {
        d.to_string()
    }
}

/// The number format of the weights and activations at inference.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Precision {
    /// 32-bit floats (always available; training uses it).
    #[default]
    #[serde(rename = "f32")]
    F32,
    /// bfloat16 (CPU and CUDA).
    #[serde(rename = "bf16")]
    Bf16,
    /// float16 (CUDA only).
    #[serde(rename = "f16")]
    F16,
    /// Chosen for the device when the network is placed ([`Precision::resolve`]).
    #[serde(rename = "auto")]
    Auto,
}

impl Precision {
    /// Every precision.
    pub const ALL: [Precision; 4] = [Precision::F32, Precision::Bf16, Precision::F16, Precision::Auto];

    /// The tch element kind (float32 for an unresolved [`Precision::Auto`]).
    pub fn kind(self) -> Kind {
        match self {
            Precision::F32 | Precision::Auto => Kind::Float,
            Precision::Bf16 => Kind::BFloat16,
            Precision::F16 => Kind::Half,
        }
    }

    /// The precision to use on `device`: itself, or for [`Precision::Auto`] bfloat16 on a CPU
    /// with AVX512-BF16 instructions (LibTorch's oneDNN kernels run it natively there; float32
    /// elsewhere, where bfloat16 is emulated and slower) and float16 on CUDA.
    pub fn resolve(self, device: Device) -> Precision {
        match (self, device) {
            (Precision::Auto, Device::Cpu) if cpu_has_bf16() => Precision::Bf16,
            (Precision::Auto, Device::Cpu) => Precision::F32,
            (Precision::Auto, _) => Precision::F16,
            (fixed, _) => fixed,
        }
    }

    /// The name used in config files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::Bf16 => "bf16",
            Precision::F16 => "f16",
            Precision::Auto => "auto",
        }
    }

    /// Checks that this precision is supported for inference on `device`.
    pub fn check(self, device: Device) -> Result<(), DeviceError> {
        match (self, device) {
            (Precision::F16, Device::Cpu) => Err(DeviceError::Unsupported { precision: self, device: DeviceChoice::Cpu }),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Precision {
    type Err = DeviceError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Precision::ALL.into_iter().find(|p| p.name() == text).ok_or_else(|| DeviceError::UnknownPrecision(text.to_string()))
    }
}

/// Whether this CPU computes bfloat16 natively (AVX512-BF16).
pub fn cpu_has_bf16() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512bf16")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Runs `f` on a thread of its own and returns its result (a panic in `f` goes on in the
/// caller). LibTorch runs on OpenMP, and GNU OpenMP keeps one team of worker threads per thread
/// that has run parallel work, for as long as that thread lives; when the live teams together
/// hold more threads than the machine has cores, every team sleeps between parallel regions
/// instead of spinning, which costs up to a third of the throughput on two cores. Networks built
/// and passes run through this leave no team behind on the calling thread.
pub fn on_fresh_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    thread::scope(|scope| scope.spawn(f).join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print() {
        for text in ["cpu", "cuda:0", "cuda:3"] {
            assert_eq!(text.parse::<DeviceChoice>().unwrap().to_string(), text);
        }
        assert_eq!("cuda".parse::<DeviceChoice>(), Ok(DeviceChoice::Cuda(0)));
        assert!("gpu".parse::<DeviceChoice>().is_err());
        assert!("cuda:x".parse::<DeviceChoice>().is_err());
        for p in Precision::ALL {
            assert_eq!(p.name().parse::<Precision>(), Ok(p));
        }
        assert!(Precision::F16.check(Device::Cpu).is_err());
        assert!(Precision::Bf16.check(Device::Cpu).is_ok());
    }

    #[test]
    fn auto_follows_the_cpu() {
        let expected = if cpu_has_bf16() { Precision::Bf16 } else { Precision::F32 };
        assert_eq!(Precision::Auto.resolve(Device::Cpu), expected);
        assert_eq!(Precision::Auto.resolve(Device::Cuda(0)), Precision::F16);
        for fixed in [Precision::F32, Precision::Bf16, Precision::F16] {
            assert_eq!(fixed.resolve(Device::Cpu), fixed);
        }
        let on_linux_x86 = cfg!(all(target_os = "linux", target_arch = "x86_64"));
        if on_linux_x86 {
            let flags = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
            assert_eq!(cpu_has_bf16(), flags.split_whitespace().any(|flag| flag == "avx512_bf16"), "agrees with /proc/cpuinfo");
        }
    }

    #[test]
    fn absent_cuda_is_an_error() {
        if !tch::Cuda::is_available() {
            assert_eq!(DeviceChoice::Cuda(0).resolve(), Err(DeviceError::NoCuda { index: 0 }));
        }
        assert_eq!(DeviceChoice::Cpu.resolve(), Ok(Device::Cpu));
    }
}
