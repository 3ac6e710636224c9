// Node 20 here, Node 22 on Lambda: the SDK's notice about Node 20 support says nothing about our code.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
