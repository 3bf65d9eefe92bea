//! Building the exports' answers. Every object and array is made by
//! defining its properties, not assigning them: a setter planted on
//! `Object.prototype` or `Array.prototype` never runs and cannot keep a
//! field out of an answer. Answer objects are declared with [`js_answer!`],
//! which names each field once: napi generates its TypeScript interface
//! (which `lib/` is type-checked against) and the macro its conversion.

use std::ffi::CStr;

use napi::bindgen_prelude::*;
use napi::{sys, Env, ValueType};

use crate::payload::Base64Output;

fn checked(status: sys::napi_status, what: &str) -> napi::Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::new(Status::GenericFailure, what.to_string()))
    }
}

const DATA_PROPERTY: sys::napi_property_attributes = sys::PropertyAttributes::writable
    | sys::PropertyAttributes::enumerable
    | sys::PropertyAttributes::configurable;

fn data_property(
    utf8name: *const std::os::raw::c_char,
    name: sys::napi_value,
    value: sys::napi_value,
) -> sys::napi_property_descriptor {
    sys::napi_property_descriptor {
        utf8name,
        name,
        method: None,
        getter: None,
        setter: None,
        value,
        attributes: DATA_PROPERTY,
        data: std::ptr::null_mut(),
    }
}

/// Define `descriptors` on `target`, an object or array of `env`.
fn define(
    env: sys::napi_env,
    target: sys::napi_value,
    descriptors: &[sys::napi_property_descriptor],
) -> napi::Result<()> {
    // SAFETY: `target` was made in `env`, live for this call; `descriptors`
    // holds initialised entries whose names (JS strings or NUL-terminated
    // static text) and values are live handles of this call.
    let status = unsafe {
        sys::napi_define_properties(env, target, descriptors.len(), descriptors.as_ptr())
    };
    checked(status, "could not define an answer's properties")
}

/// An object whose fields are defined one by one, then built.
pub(super) struct DefinedObject {
    env: sys::napi_env,
    descriptors: Vec<sys::napi_property_descriptor>,
}

impl DefinedObject {
    pub(super) fn new(env: sys::napi_env) -> Self {
        DefinedObject {
            env,
            descriptors: Vec::new(),
        }
    }

    pub(super) fn field<T: ToNapiValue>(
        &mut self,
        name: &'static CStr,
        value: T,
    ) -> napi::Result<()> {
        // SAFETY: `env` is the environment of the call being answered.
        let value = unsafe { T::to_napi_value(self.env, value) }?;
        self.descriptors
            .push(data_property(name.as_ptr(), std::ptr::null_mut(), value));
        Ok(())
    }

    pub(super) fn build(self) -> napi::Result<sys::napi_value> {
        let mut object = std::ptr::null_mut();
        // SAFETY: `env` is live; the out-pointer is a local.
        let created = unsafe { sys::napi_create_object(self.env, &mut object) };
        checked(created, "could not create an object")?;
        define(self.env, object, &self.descriptors)?;
        Ok(object)
    }
}

/// A list answered as a JS array.
pub(super) struct List<T>(pub Vec<T>);

impl<T> TypeName for List<T> {
    fn type_name() -> &'static str {
        "Array"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl<T: ToNapiValue> ToNapiValue for List<T> {
    unsafe fn to_napi_value(env: sys::napi_env, list: Self) -> napi::Result<sys::napi_value> {
        let mut array = std::ptr::null_mut();
        // SAFETY: `env` is live; the out-pointer is a local.
        let created = unsafe { sys::napi_create_array_with_length(env, list.0.len(), &mut array) };
        checked(created, "could not create an array")?;
        let mut descriptors = Vec::with_capacity(list.0.len());
        for (index, value) in list.0.into_iter().enumerate() {
            // SAFETY: `env` is live; a property name must be a JS string.
            let name = unsafe { String::to_napi_value(env, index.to_string()) }?;
            // SAFETY: as above.
            let value = unsafe { T::to_napi_value(env, value) }?;
            descriptors.push(data_property(std::ptr::null(), name, value));
        }
        define(env, array, &descriptors)?;
        Ok(array)
    }
}

/// Declares an answer object: its fields (`rust_name: Type = "jsName"`,
/// with `#[ts("...")]` where the TypeScript type is not the field's own),
/// its generated TypeScript interface and its conversion to JS, which
/// defines every field, `null` for `None`. Write its comments with `//`:
/// napi would copy a `///` passed through a macro into the declarations
/// with its raw-string quote.
macro_rules! js_answer {
    (
        pub struct $name:ident {
            $(
                $(#[ts($ts:literal)])?
                $field:ident: $ty:ty = $js:literal,
            )*
        }
    ) => {
        #[napi_derive::napi(object, object_to_js = false, object_from_js = false, use_nullable = true)]
        pub struct $name {
            $(
                #[napi(js_name = $js $(, ts_type = $ts)?)]
                pub $field: $ty,
            )*
        }

        impl napi::bindgen_prelude::ToNapiValue for $name {
            unsafe fn to_napi_value(
                env: napi::sys::napi_env,
                value: Self,
            ) -> napi::Result<napi::sys::napi_value> {
                let mut object = $crate::binding::answer::DefinedObject::new(env);
                $(
                    // Checked when compiled: a name with a NUL fails the build.
                    let name = const {
                        match std::ffi::CStr::from_bytes_with_nul(concat!($js, "\0").as_bytes()) {
                            Ok(name) => name,
                            Err(_) => panic!("an answer field's name holds a NUL"),
                        }
                    };
                    object.field(name, value.$field)?;
                )*
                object.build()
            }
        }
    };
}

/// A file part's base64 as the entry gets it: `null` when it is the input
/// itself (a canonical base64 string, or bytes the entry encodes right
/// away, with no JS between check and encoding), a string when re-encoded,
/// a Buffer for the private copy an async conversion checked (for the entry
/// to encode: Node's encoder writes an external string, where a string made
/// here would be copied into the JS heap).
pub(super) enum Base64Value {
    Input,
    Encoded(String),
    CheckedCopy(Vec<u8>),
}

impl Base64Value {
    /// `checked_copy`: the bytes an async conversion checked, if it has them.
    pub(super) fn new(data: Base64Output, checked_copy: Option<Vec<u8>>) -> Self {
        match (data, checked_copy) {
            (Base64Output::Encoded(text), _) => Base64Value::Encoded(text),
            (Base64Output::InputBytes, Some(copy)) => Base64Value::CheckedCopy(copy),
            (Base64Output::InputString | Base64Output::InputBytes, _) => Base64Value::Input,
        }
    }
}

impl TypeName for Base64Value {
    fn type_name() -> &'static str {
        "string | Buffer | null"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl ToNapiValue for Base64Value {
    unsafe fn to_napi_value(env: sys::napi_env, value: Self) -> napi::Result<sys::napi_value> {
        match value {
            // SAFETY: forwarded with the environment of this call.
            Base64Value::Input => unsafe { Null::to_napi_value(env, Null) },
            // Base64 is ASCII: a Latin-1 string is made without transcoding.
            Base64Value::Encoded(text) => {
                let env = Env::from_raw(env);
                let string = env.create_string_latin1(text.as_bytes())?;
                Ok(string.raw())
            }
            // SAFETY: forwarded with the environment of this call.
            Base64Value::CheckedCopy(bytes) => unsafe { Buffer::to_napi_value(env, bytes.into()) },
        }
    }
}

js_answer! {
    // A file a conversion saved: the whole text, a spilled part or the
    // original of an image made to fit.
    pub struct SavedFile {
        path: String = "path",
        byte_length: f64 = "byteLength",
        // The media type it was saved as.
        media_type: String = "mediaType",
    }
}

impl From<crate::content::Saved> for SavedFile {
    fn from(saved: crate::content::Saved) -> Self {
        SavedFile {
            path: saved.path,
            byte_length: saved.byte_length as f64,
            media_type: saved.media_type,
        }
    }
}
