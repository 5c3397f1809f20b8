//! The few calls of CUDA's driver API that put a decoded NVDEC frame into Vulkan memory: import
//! memory Vulkan exported, copy planes into it on the device, wait for the copy. The library
//! (`libcuda.so.1`, NVIDIA's driver) is opened at run time, so histoplay starts, and falls back
//! to copying frames through memory, on machines without it; FFmpeg's NVDEC decoder has loaded
//! it already wherever a frame could come this way.
//!
//! Each call names its symbol as CUDA's header maps it (`cuMemcpy2DAsync` is `_v2` since CUDA
//! 3.2); every function of the table is resolved when the library opens, so a driver too old for
//! external memory (CUDA 10) is told at once rather than mid-stream.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::os::fd::{IntoRawFd, OwnedFd};
use std::sync::OnceLock;

pub type CuResult = c_int;
pub type CuDevicePtr = u64;
pub type CuContext = *mut c_void;
pub type CuStream = *mut c_void;
type CuExternalMemory = *mut c_void;

const CUDA_SUCCESS: CuResult = 0;
const CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD: c_uint = 1;
const CUDA_EXTERNAL_MEMORY_DEDICATED: c_uint = 1;
const CU_MEMORYTYPE_DEVICE: c_uint = 2;

/// `CUDA_EXTERNAL_MEMORY_HANDLE_DESC`: the handle is a union of an fd, a Win32 handle and name,
/// or an NvSciBuf object (16 bytes, 8-aligned); only the fd is used here.
#[repr(C)]
struct ExternalMemoryHandleDesc {
    kind: c_uint,
    handle: Handle,
    size: u64,
    flags: c_uint,
    reserved: [c_uint; 16],
}

#[repr(C)]
union Handle {
    fd: c_int,
    _others: [u64; 2],
}

/// `CUDA_EXTERNAL_MEMORY_BUFFER_DESC`.
#[repr(C)]
struct ExternalMemoryBufferDesc {
    offset: u64,
    size: u64,
    flags: c_uint,
    reserved: [c_uint; 16],
}

/// `CUDA_MEMCPY2D`.
#[repr(C)]
struct Memcpy2d {
    src_x_in_bytes: usize,
    src_y: usize,
    src_memory_type: c_uint,
    src_host: *const c_void,
    src_device: CuDevicePtr,
    src_array: *mut c_void,
    src_pitch: usize,
    dst_x_in_bytes: usize,
    dst_y: usize,
    dst_memory_type: c_uint,
    dst_host: *mut c_void,
    dst_device: CuDevicePtr,
    dst_array: *mut c_void,
    dst_pitch: usize,
    width_in_bytes: usize,
    height: usize,
}

// The layouts of CUDA's header (cuda.h, x86-64 and aarch64 alike).
const _: () = {
    assert!(std::mem::size_of::<ExternalMemoryHandleDesc>() == 104);
    assert!(std::mem::offset_of!(ExternalMemoryHandleDesc, handle) == 8);
    assert!(std::mem::offset_of!(ExternalMemoryHandleDesc, size) == 24);
    assert!(std::mem::size_of::<ExternalMemoryBufferDesc>() == 88);
    assert!(std::mem::size_of::<Memcpy2d>() == 128);
};

/// The driver's functions this module calls.
struct Api {
    ctx_push_current: unsafe extern "C" fn(CuContext) -> CuResult,
    ctx_pop_current: unsafe extern "C" fn(*mut CuContext) -> CuResult,
    ctx_get_device: unsafe extern "C" fn(*mut c_int) -> CuResult,
    device_get_uuid: unsafe extern "C" fn(*mut [u8; 16], c_int) -> CuResult,
    import_external_memory: unsafe extern "C" fn(*mut CuExternalMemory, *const ExternalMemoryHandleDesc) -> CuResult,
    external_memory_get_mapped_buffer:
        unsafe extern "C" fn(*mut CuDevicePtr, CuExternalMemory, *const ExternalMemoryBufferDesc) -> CuResult,
    destroy_external_memory: unsafe extern "C" fn(CuExternalMemory) -> CuResult,
    mem_free: unsafe extern "C" fn(CuDevicePtr) -> CuResult,
    memcpy_2d_async: unsafe extern "C" fn(*const Memcpy2d, CuStream) -> CuResult,
    stream_synchronize: unsafe extern "C" fn(CuStream) -> CuResult,
    get_error_name: unsafe extern "C" fn(CuResult, *mut *const c_char) -> CuResult,
    /// Keeps the functions above loaded.
    _library: libloading::Library,
}

/// CUDA's driver, once opened for the process; why not, where it can't be.
fn api() -> Result<&'static Api, String> {
    static API: OnceLock<Result<Api, String>> = OnceLock::new();
    API.get_or_init(|| {
        // SAFETY: libcuda's initialisers are the driver's own; it is never unloaded.
        let library =
            unsafe { libloading::Library::new("libcuda.so.1") }.map_err(|e| format!("no CUDA driver ({e})"))?;
        // SAFETY: each symbol is declared with its signature in CUDA's header.
        unsafe {
            macro_rules! symbol {
                ($name:literal) => {
                    *library
                        .get(concat!($name, "\0").as_bytes())
                        .map_err(|e| format!("the CUDA driver is too old ({e})"))?
                };
            }
            Ok(Api {
                ctx_push_current: symbol!("cuCtxPushCurrent_v2"),
                ctx_pop_current: symbol!("cuCtxPopCurrent_v2"),
                ctx_get_device: symbol!("cuCtxGetDevice"),
                device_get_uuid: symbol!("cuDeviceGetUuid"),
                import_external_memory: symbol!("cuImportExternalMemory"),
                external_memory_get_mapped_buffer: symbol!("cuExternalMemoryGetMappedBuffer"),
                destroy_external_memory: symbol!("cuDestroyExternalMemory"),
                mem_free: symbol!("cuMemFree_v2"),
                memcpy_2d_async: symbol!("cuMemcpy2DAsync_v2"),
                stream_synchronize: symbol!("cuStreamSynchronize"),
                get_error_name: symbol!("cuGetErrorName"),
                _library: library,
            })
        }
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// A failed call's name and CUDA's name for its result.
fn check(api: &Api, call: &str, result: CuResult) -> Result<(), String> {
    if result == CUDA_SUCCESS {
        return Ok(());
    }
    let mut name: *const c_char = std::ptr::null();
    // SAFETY: the driver writes a pointer to a static string, or leaves it null.
    let known = unsafe { (api.get_error_name)(result, &mut name) } == CUDA_SUCCESS && !name.is_null();
    let name = match known {
        // SAFETY: a static, nul-terminated string of the driver's.
        true => unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned(),
        false => format!("error {result}"),
    };
    Err(format!("{call} failed: {name}"))
}

/// FFmpeg's CUDA context and stream of one NVDEC decoder (its device's `AVCUDADeviceContext`).
#[derive(Clone, Copy, Debug)]
pub struct CudaStream {
    pub context: CuContext,
    pub stream: CuStream,
}

// SAFETY: a CUDA context may be made current on any thread (one at a time per call here, each
// call pushing and popping it); the stream belongs to it.
unsafe impl Send for CudaStream {}
unsafe impl Sync for CudaStream {}

/// The context made current on this thread for as long as it lives.
struct Current<'a>(&'a Api);

impl<'a> Current<'a> {
    fn push(api: &'a Api, context: CuContext) -> Result<Self, String> {
        // SAFETY: FFmpeg's context, alive as long as its device.
        check(api, "cuCtxPushCurrent", unsafe { (api.ctx_push_current)(context) })?;
        Ok(Self(api))
    }
}

impl Drop for Current<'_> {
    fn drop(&mut self) {
        let mut popped = std::ptr::null_mut();
        // SAFETY: pops the context `push` made current.
        unsafe { (self.0.ctx_pop_current)(&mut popped) };
    }
}

/// One plane's copy: rows of `width_bytes` from device memory at `from` (rows `from_pitch`
/// apart) to `to` (rows `to_pitch` apart).
#[derive(Clone, Copy, Debug)]
pub struct PlaneCopy {
    pub from: CuDevicePtr,
    pub from_pitch: usize,
    pub to: CuDevicePtr,
    pub to_pitch: usize,
    pub width_bytes: usize,
    pub rows: usize,
}

impl CudaStream {
    /// The UUID of the context's GPU, to match against Vulkan's device.
    pub fn device_uuid(&self) -> Result<[u8; 16], String> {
        let api = api()?;
        let _current = Current::push(api, self.context)?;
        let mut device = 0;
        let mut uuid = [0u8; 16];
        // SAFETY: the outputs are valid for writes.
        unsafe {
            check(api, "cuCtxGetDevice", (api.ctx_get_device)(&mut device))?;
            check(api, "cuDeviceGetUuid", (api.device_get_uuid)(&mut uuid, device))?;
        }
        Ok(uuid)
    }

    /// Maps Vulkan memory exported as `fd` (`size` bytes, of a dedicated allocation or not)
    /// into this context: CUDA owns the fd once imported; it is closed on every failure.
    pub fn import(&self, fd: OwnedFd, size: u64, dedicated: bool) -> Result<ImportedMemory, String> {
        let api = api()?;
        let _current = Current::push(api, self.context)?;
        let fd = fd.into_raw_fd();
        let mut desc = ExternalMemoryHandleDesc {
            kind: CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD,
            handle: Handle { _others: [0; 2] },
            size,
            flags: if dedicated { CUDA_EXTERNAL_MEMORY_DEDICATED } else { 0 },
            reserved: [0; 16],
        };
        desc.handle.fd = fd;
        let mut memory: CuExternalMemory = std::ptr::null_mut();
        // SAFETY: a valid description; on success CUDA owns the fd.
        let imported = unsafe { (api.import_external_memory)(&mut memory, &desc) };
        if let Err(e) = check(api, "cuImportExternalMemory", imported) {
            // SAFETY: a failed import leaves the fd with the caller.
            unsafe { libc::close(fd) };
            return Err(e);
        }
        let buffer = ExternalMemoryBufferDesc {
            offset: 0,
            size,
            flags: 0,
            reserved: [0; 16],
        };
        let mut pointer: CuDevicePtr = 0;
        // SAFETY: the whole imported range, mapped once.
        let mapped = unsafe { (api.external_memory_get_mapped_buffer)(&mut pointer, memory, &buffer) };
        if let Err(e) = check(api, "cuExternalMemoryGetMappedBuffer", mapped) {
            // SAFETY: the memory imported above, mapped nowhere.
            unsafe { (api.destroy_external_memory)(memory) };
            return Err(e);
        }
        Ok(ImportedMemory {
            context: self.context,
            memory,
            pointer,
        })
    }

    /// Copies `planes` on the device, on FFmpeg's stream (after the decoder's own work on it),
    /// and waits until they are done: the memory is then the next Vulkan submission's to read.
    pub fn copy_planes(&self, planes: &[PlaneCopy]) -> Result<(), String> {
        let api = api()?;
        let _current = Current::push(api, self.context)?;
        for plane in planes {
            let copy = Memcpy2d {
                src_x_in_bytes: 0,
                src_y: 0,
                src_memory_type: CU_MEMORYTYPE_DEVICE,
                src_host: std::ptr::null(),
                src_device: plane.from,
                src_array: std::ptr::null_mut(),
                src_pitch: plane.from_pitch,
                dst_x_in_bytes: 0,
                dst_y: 0,
                dst_memory_type: CU_MEMORYTYPE_DEVICE,
                dst_host: std::ptr::null_mut(),
                dst_device: plane.to,
                dst_array: std::ptr::null_mut(),
                dst_pitch: plane.to_pitch,
                width_in_bytes: plane.width_bytes,
                height: plane.rows,
            };
            // SAFETY: both ranges are device memory of this context: the decoder's frame and
            // an imported buffer at least `to_pitch * rows` long.
            check(api, "cuMemcpy2DAsync", unsafe {
                (api.memcpy_2d_async)(&copy, self.stream)
            })?;
        }
        // SAFETY: FFmpeg's stream of this context.
        check(api, "cuStreamSynchronize", unsafe {
            (api.stream_synchronize)(self.stream)
        })
    }
}

/// Vulkan memory mapped into a CUDA context; unmapped and released when dropped (before Vulkan
/// frees the memory).
pub struct ImportedMemory {
    context: CuContext,
    memory: CuExternalMemory,
    /// The memory's first byte, as CUDA addresses it.
    pub pointer: CuDevicePtr,
}

// SAFETY: CUDA handles of a context any thread may make current.
unsafe impl Send for ImportedMemory {}
unsafe impl Sync for ImportedMemory {}

impl Drop for ImportedMemory {
    fn drop(&mut self) {
        let Ok(api) = api() else { return };
        let Ok(_current) = Current::push(api, self.context) else {
            log::warn!("CUDA's mapping of a GPU frame cache chunk is kept: its context is gone");
            return;
        };
        // SAFETY: the mapping and the import made in `import`, released once.
        unsafe {
            (api.mem_free)(self.pointer);
            (api.destroy_external_memory)(self.memory);
        }
    }
}

/// Whether CUDA's driver can be opened here, and why not.
pub fn available() -> Result<(), String> {
    api().map(|_| ())
}
