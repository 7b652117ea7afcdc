print("flowhost")
